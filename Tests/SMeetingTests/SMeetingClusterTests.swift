import Foundation
import SMeeting
import SMeetingProtocol
import SRTC
import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// The SDK on a cluster (docs/deploy.md, "A cluster of nodes"): when the node that runs a meeting
/// drains, the members' sessions cannot be resumed there; the login through another node answers
/// `rejoin` and the SDK enters the meeting again by itself, while the meeting's SRTC channel moves
/// on its own. The app sees nobody leave and no disconnection; chat and audio flow again.
@Suite(.serialized) struct SMeetingClusterTests {
    @Test func theSDKEntersAgainByItselfWhenItsMeetingsNodeDrains() async throws {
        let nodes = try await TestServer.meetingCluster(["a", "b", "c"]).nodes
        let a = nodes[0], b = nodes[1], c = nodes[2]
        // Alice reaches b, bob reaches c; the meeting runs on a (all idle: the smallest id).
        let alice = try await TestMember(server: b, uid: "alice")
        let bob = try await TestMember(server: c, uid: "bob")
        let meeting = try await alice.host(MeetingCreateReq(title: "drain"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await alice.events.wait(for: "enter bob")
        _ = try await alice.engine.adminSetCoHost(uid: "bob")
        try await bob.events.wait(for: "role bob co_host")
        let pusher = try MeetingMediaPusher(engine: bob.engine, width: 160, height: 90)
        defer { pusher.stop() }
        try await bob.engine.requestOpenMic()
        let before = PacketCounter(at: alice, from: "bob", kind: .audio)
        try await before.waitForMore(20, "bob's mic before the drain")

        await a.app.drain(deadline: .zero)
        // Both enter again on the meeting's new node by themselves.
        try await eventually(timeout: 30, "the meeting runs on another node with both members") {
            let (status, info) = try await c.call("/server/v1/meeting/info", ["meeting_id": meeting.meetingId])
            let members = Set((info["members"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } ?? [])
            return status == 200 && members == ["alice", "bob"] && !alice.engine.isReconnecting && !bob.engine.isReconnecting
        }
        #expect(alice.engine.isInRoom && bob.engine.isInRoom)
        #expect(try bob.engine.getUserInfo("bob").role == .coHost && bob.engine.getUserInfo("bob").micState == .on)
        #expect(Set(alice.engine.getUsersInfoList().map(\.uid)) == ["alice", "bob"])
        // Nobody left, nobody was disconnected, nobody entered twice.
        for member in [alice, bob] {
            let lines = member.events.lines
            #expect(!lines.contains { $0.hasPrefix("exit ") || $0.hasPrefix("out ") || $0 == "connection lost" }, "\(member.uid): \(lines)")
        }
        #expect(alice.events.lines.filter { $0 == "enter bob" }.count == 1, "\(alice.events.lines)")

        // Chat and bob's audio flow again.
        try await bob.engine.sendRoomChatMessage("after the drain")
        try await alice.events.wait(for: "chat bob->all: after the drain")
        let after = PacketCounter(at: alice, from: "bob", kind: .audio)
        try await eventually("alice's first reading of bob's audio after the drain") { after.total > 0 }
        try await after.waitForMore(20, "bob's mic after the drain")

        await bob.engine.logout()
        await alice.engine.logout()
        await a.stop()
        await c.stop()
        await b.stop()
    }
}
