#if canImport(Glibc)
import Glibc
#endif
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

    /// The node that runs a meeting drains while bob shares his screen and carol waits in the
    /// waiting room the host turned on live: on the meeting's new node bob still shares (his
    /// screen's frames reach alice again, alice may not start a second share), carol's SDK waits
    /// again by itself and alice, who lists her, admits her there.
    @Test func theScreenShareAndTheWaitingRoomSurviveTheDrainOfTheMeetingsNode() async throws {
        let nodes = try await TestServer.meetingCluster(["a", "b", "c"]).nodes
        let a = nodes[0], b = nodes[1], c = nodes[2]
        try await expectShareAndWaitingRoomSurvive(via: b, c) { await a.app.drain(deadline: .zero) }
        await a.stop()
        await c.stop()
        await b.stop()
    }

    /// The same when the meeting's node dies (`kill -9`): the SDKs come back once its registry
    /// entry expires, on the node that takes the meeting over.
    @Test func theScreenShareAndTheWaitingRoomSurviveTheDeathOfTheMeetingsNode() async throws {
        let (a, nodes, _) = try await TestServer.meetingClusterWithNodeToKill()
        let b = nodes[0], c = nodes[1]
        try await expectShareAndWaitingRoomSurvive(via: b, c) {
            a.send(SIGKILL)
            _ = try await a.waitForExit()
        }
        await c.stop()
        await b.stop()
    }

    /// Alice (host, through `aliceNode`) turns the waiting room on, carol (through `othersNode`)
    /// waits, bob (through `othersNode`) shares his screen and alice sees its frames; the meeting
    /// runs on a third node, which `move` drains or kills. Then: alice and bob are in the meeting
    /// on its new node, carol waits there and alice lists her, bob still shares and his frames
    /// pushed after the move reach alice, a second share is refused; alice admits carol, who
    /// enters. Nobody saw anyone leave.
    private func expectShareAndWaitingRoomSurvive(via aliceNode: TestServer, _ othersNode: TestServer,
                                                  move: () async throws -> Void) async throws {
        let alice = try await TestMember(server: aliceNode, uid: "alice")
        let bob = try await TestMember(server: othersNode, uid: "bob")
        let carol = try await TestMember(server: othersNode, uid: "carol")
        let meeting = try await alice.host(MeetingCreateReq(title: "share and waiting room"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await alice.events.wait(for: "enter bob")
        _ = try await alice.engine.adminSetWaitingRoom(true)
        try await carol.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        #expect(carol.engine.isInWaitingRoom)
        try await alice.events.wait(for: "waits carol")
        let preset = VideoPreset(width: 160, height: 90, frameRate: 30, maxBitrate: 200_000)
        let pusher = try MeetingMediaPusher(width: preset.width, height: preset.height, video: { bob.engine.pushScreenFrame($0) }, audio: { _ in })
        defer { pusher.stop() }
        try await bob.engine.requestShare(shareType: .screen, preset: preset)
        try await alice.events.wait(for: "share+ bob 1")
        let screen = MeetingMediaCollector()
        _ = try await alice.engine.startPlayRemoteVideo(view: screen, uid: "bob", trackDesc: .screen)
        try await eventually("bob's screen frames before the move") { screen.numbers.count > 10 }

        try await move()
        try await eventually(timeout: 30, "the meeting runs on another node with alice and bob, carol waiting") {
            let (status, info) = try await othersNode.call("/server/v1/meeting/info", ["meeting_id": meeting.meetingId])
            let members = Set((info["members"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } ?? [])
            return status == 200 && members == ["alice", "bob"] && [alice, bob, carol].allSatisfy { !$0.engine.isReconnecting }
        }
        // Carol's SDK waits again; alice lists her; bob shares still.
        #expect(carol.engine.isInWaitingRoom && !carol.engine.isInRoom)
        #expect(alice.engine.getWaitingList().map(\.uid) == ["carol"])
        #expect(alice.engine.getRoomInfo()?.sharingUid == "bob" && bob.engine.getRoomInfo()?.sharingUid == "bob")
        // Bob's screen frames arrive again: frames he pushed after the move.
        let pushedAfter = pusher.framesPushed
        try await eventually(timeout: 30, "bob's screen frames after the move (pushed from \(pushedAfter), got up to \(screen.numbers.max() ?? -1))") {
            screen.numbers.contains { $0 > pushedAfter }
        }
        // A second share is refused, as before the move.
        do {
            try await alice.engine.requestShare(shareType: .whiteBoard)
            Issue.record("alice started a second share")
        } catch SMeetingError.apiError(let code, _) {
            #expect(code == MeetingErrorCode.alreadySharing.rawValue)
        }
        // Alice admits carol on the new node; carol enters.
        try await alice.engine.adminAdmitWaiting(uid: "carol")
        try await carol.events.wait(for: "admitted")
        try await alice.events.wait(for: "enter carol")
        #expect(carol.engine.isInRoom)
        // Nobody left or lost the connection.
        for member in [alice, bob, carol] {
            let lines = member.events.lines
            #expect(!lines.contains { $0.hasPrefix("exit ") || $0.hasPrefix("out ") || $0 == "connection lost" || $0.hasPrefix("share- ") },
                    "\(member.uid): \(lines)")
        }

        await carol.engine.logout()
        await bob.engine.logout()
        await alice.engine.logout()
    }
}
