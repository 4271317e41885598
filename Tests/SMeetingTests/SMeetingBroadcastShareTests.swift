import Foundation
import RTCMedia
import SMeeting
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Full-screen sharing from a broadcast extension (seed 001, "iOS full-screen sharing"), with the
/// extension's side played by `BroadcastSender` on the App Group's socket: nothing reaches the
/// meeting until `publishBroadcastShare`, the frames then arrive at another member with their
/// numbers, the share ends with the broadcast, and listening follows the documented lifetime.
@Suite(.serialized) struct SMeetingBroadcastShareTests {
    static let preset = VideoPreset(width: 160, height: 90, frameRate: 30, maxBitrate: 200_000)

    /// The extension's side: numbered frames to whichever sender is connected now.
    final class Extension: @unchecked Sendable {
        let path: String
        let sender = Mutex<BroadcastSender?>(nil)
        let toldToStop = Atomic<Int>(0)
        private(set) var pusher: MeetingMediaPusher!

        init(appGroup: String) throws {
            guard let path = SRTCEngine.broadcastSocketPath(appGroup: appGroup) else { throw TestFailure(description: "no socket for \(appGroup)") }
            self.path = path
            pusher = try MeetingMediaPusher(width: 160, height: 90, fps: 30, video: { [weak self] frame in
                self?.sender.withLock { $0 }?.send(frame: frame)
            }, audio: { _ in })
        }

        /// The user starts broadcasting from the system UI.
        func start() throws {
            let connected = try BroadcastSender(path: path) { [weak self] in self?.toldToStop.add(1, ordering: .relaxed) }
            sender.withLock { $0 = connected }
        }

        /// The user ends it from the system pill.
        func finish() { sender.withLock { s in defer { s = nil }; return s }?.finish() }
    }

    func count(_ member: TestMember, _ line: String) -> Int { member.events.lines.filter { $0 == line }.count }

    @Test func prepareThenPublishThenTheBroadcastEndsTheShare() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let meeting = try await host.host(MeetingCreateReq(title: "broadcast"))
        await #expect(throws: SMeetingError.notInMeeting) { try await bob.engine.prepareBroadcastShare(appGroup: "group.srtc.test") }
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))

        await #expect(throws: SMeetingError.internalError("prepareBroadcastShare has not been called")) { try await bob.engine.publishBroadcastShare() }
        await #expect(throws: SMeetingError.deviceError("no broadcast socket for the App Group 'a/b'")) {
            try await bob.engine.prepareBroadcastShare(appGroup: "a/b")
        }
        let group = "group.srtc.test-\(UUID().uuidString.prefix(8))"
        try await bob.engine.prepareBroadcastShare(appGroup: group, preset: Self.preset)
        try await bob.engine.prepareBroadcastShare(appGroup: group, preset: Self.preset)   // idempotent
        #expect(!bob.engine.isShareBroadcastActive)
        await #expect(throws: SMeetingError.internalError("a screen sharing track already exists")) { try await bob.engine.startViewCaptureShare() }

        // The user starts broadcasting: bob hears it; the meeting does not, until he publishes.
        let ext = try Extension(appGroup: group)
        defer { ext.pusher.stop() }
        try ext.start()
        try await bob.events.wait(for: "screen broadcast+")
        #expect(bob.engine.isShareBroadcastActive)
        #expect(host.engine.getRoomInfo()?.sharingUid == nil && !host.events.lines.contains("share+ bob 1"))

        try await bob.engine.publishBroadcastShare()
        try await bob.engine.publishBroadcastShare()   // idempotent
        try await host.events.wait(for: "share+ bob 1")
        let screen = MeetingMediaCollector()
        _ = try await host.engine.startPlayRemoteVideo(view: screen, uid: "bob", trackDesc: .screen)
        try await eventually("the broadcast's frames at the host") { Set(screen.numbers).count > 10 }
        let numbers = screen.numbers
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "numbers \(numbers)")
        #expect(numbers.last! <= ext.pusher.framesPushed)

        // stopShare ends the user's broadcast (the extension is told) and the share; listening goes on.
        await bob.engine.stopShare()
        try await eventually("the extension told to stop") { ext.toldToStop.load(ordering: .relaxed) == 1 }
        ext.finish()
        try await host.events.wait(for: "share- bob")
        try await bob.events.wait(for: "screen broadcast- stopped")
        try await eventually("not broadcasting") { !bob.engine.isShareBroadcastActive }

        // The user starts again from the system UI and ends it from the pill: the share ends with it.
        try ext.start()
        try await eventually("a second broadcast") { count(bob, "screen broadcast+") == 2 }
        try await bob.engine.publishBroadcastShare()
        try await eventually("shared again") { count(host, "share+ bob 1") == 2 }
        ext.finish()
        try await bob.events.wait(for: "screen broadcast- finished")
        try await eventually("the share ended with the broadcast") { count(host, "share- bob") == 2 && bob.engine.screenTrack == nil }

        // stopBroadcastListening: no extension can connect any more.
        await bob.engine.stopBroadcastListening()
        #expect(throws: SRTCError.self) { try ext.start() }
        await #expect(throws: SMeetingError.internalError("prepareBroadcastShare has not been called")) { try await bob.engine.publishBroadcastShare() }

        // The one-step version announces the share before any frame; exitRoom stops listening.
        try await bob.engine.requestShare(broadcastAppGroup: group, preset: Self.preset)
        try await eventually("shared at once") { count(host, "share+ bob 1") == 3 }
        #expect(!bob.engine.isShareBroadcastActive)
        try ext.start()
        let again = MeetingMediaCollector()
        try await eventually("bob's screen track again") { host.channel?.remoteTrack(uid: "bob", desc: "screen") != nil }
        _ = try await host.engine.startPlayRemoteVideo(view: again, uid: "bob", trackDesc: .screen)
        try await eventually("frames of the one-step share") { Set(again.numbers).count > 10 }
        await bob.engine.exitRoom()
        try await eventually("the extension told to stop on exit (\(ext.toldToStop.load(ordering: .relaxed)) stops, \(bob.events.lines))") { ext.toldToStop.load(ordering: .relaxed) == 2 }
        ext.finish()
        #expect(throws: SRTCError.self) { try ext.start() }
        await server.stop()
    }
}
