import Foundation
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// A member's meeting WebSocket cut by the network (a relay drops both TCP sides, no close
/// frame): within the grace period the SDK resumes the session, nobody sees the member exit and
/// it gets what it missed, in order; after it, the member exits and `meetingConnectionDidLose`
/// fires.
@Suite(.serialized) struct SMeetingResumeTests {
    @Test func aCutConnectionResumesWithinTheGracePeriodAndEndsAfterIt() async throws {
        let server = try TestServer.withMeetings(grace: 3)
        let relay = try SDKTestProxy(to: server.app.httpPort)
        defer { relay.stop() }
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob", url: relay.url)
        let meeting = try await host.host(MeetingCreateReq(title: "flaky"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await host.events.wait(for: "enter bob")

        // The cut, and a second of outage during which things happen.
        relay.setRefusing(true)
        relay.dropAll()
        try await eventually("bob reconnecting") { bob.engine.isReconnecting }
        #expect(bob.engine.isInRoom && bob.engine.isLoggedIn)
        try await host.engine.sendRoomChatMessage("while you were away")
        try await host.engine.adminSetCoHost(uid: "bob")
        try await host.engine.sendRoomChatMessage("and after that")
        try await eventually("a reconnect attempt refused during the outage") { relay.refusedCount >= 1 }
        relay.setRefusing(false)

        try await eventually("bob resumed") { !bob.engine.isReconnecting }
        try await bob.events.wait(for: "chat host->all: and after that")
        let seen = bob.events.lines.filter { $0.hasPrefix("chat") || $0.hasPrefix("role") || $0.hasPrefix("reconnect") }
        // Told when it dropped and when it resumed, then the events missed, in order.
        #expect(seen == ["reconnecting", "reconnected", "chat host->all: while you were away", "role bob co_host", "chat host->all: and after that"])
        #expect(try bob.engine.isInRoom && bob.engine.getUserInfo("bob").role == .coHost)
        #expect(!host.events.lines.contains { $0.hasPrefix("exit bob") } && !bob.events.lines.contains("connection lost"))
        // The session works as before.
        try await bob.engine.sendRoomChatMessage("back")
        try await host.events.wait(for: "chat bob->all: back")

        // A cut longer than the grace period: bob exits for everyone, and his SDK gives up.
        relay.setRefusing(true)
        relay.dropAll()
        try await host.events.wait(for: "exit bob disconnected")
        try await bob.events.wait(for: "out disconnected")
        try await bob.events.wait(for: "connection lost")
        #expect(bob.events.lines.filter { $0.hasPrefix("reconnect") } == ["reconnecting", "reconnected", "reconnecting"], "\(bob.events.lines)")
        #expect(!bob.engine.isInRoom && !bob.engine.isLoggedIn && !bob.engine.isReconnecting)
        await #expect(throws: SMeetingError.notLoggedIn) { try await bob.engine.createRoom(MeetingCreateReq(title: "x")) }
        await server.stop()
    }
}
