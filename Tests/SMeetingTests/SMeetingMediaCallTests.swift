import Foundation
import RTCMedia
import SMeeting
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// The media calls of the SDK (seed 001), each checked by what another member receives.
@Suite(.serialized) struct SMeetingMediaCallTests {
    static let preset = VideoPreset(width: 160, height: 90, frameRate: 30, maxBitrate: 200_000)

    /// A view of the app's own: numbered frames as `ViewCaptureSource`.
    final class Canvas: ViewCaptureSource, @unchecked Sendable {
        let generator: TestPatternGenerator
        let drawn = Mutex(0)
        init() throws { generator = try TestPatternGenerator(width: 160, height: 90, frameRate: 15) }
        func captureViewFrame() -> VideoFrame? {
            generator.videoFrame(number: drawn.withLock { n -> Int in defer { n += 1 }; return n })
        }
    }

    @Test func openCloseShareViewCaptureAndTheAutomaticUnpublish() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let meeting = try await host.host(MeetingCreateReq(title: "media"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        let pusher = try MeetingMediaPusher(width: Self.preset.width, height: Self.preset.height, video: { frame in
            bob.engine.pushCameraFrame(frame)
            bob.engine.pushScreenFrame(frame)
        }, audio: { bob.engine.pushMicAudio($0) })
        defer { pusher.stop() }
        let audio = PacketCounter(at: host, from: "bob", kind: .audio)

        // switchCamera needs the camera on.
        await #expect(throws: SMeetingError.deviceError("the camera is not on")) { try await bob.engine.switchCamera() }

        // closeMic: unpublished (not muted), the host hears nothing more.
        try await bob.engine.requestOpenMic()
        try await audio.waitForMore(20, "bob's mic")
        await bob.engine.closeMic()
        #expect(bob.engine.micTrack == nil)
        try await host.events.wait(for: "mic bob off")
        try await eventually("bob's mic track gone") { host.channel?.remoteTrack(uid: "bob", desc: "mic") == nil }
        try await audio.expectSilence(seconds: 0.3, "after closeMic")

        // closeCamera, after frames arrived (switchCamera works while it is on).
        let camera = MeetingMediaCollector()
        try await bob.engine.requestOpenCamera(preset: Self.preset)
        try await bob.engine.switchCamera()
        _ = try await host.engine.startPlayRemoteVideo(view: camera, uid: "bob", trackDesc: .cameraBig)
        try await eventually("bob's camera frames") { camera.numbers.count > 10 }
        await bob.engine.closeCamera()
        #expect(bob.engine.cameraTrack == nil)
        try await host.events.wait(for: "camera bob off")
        try await eventually("bob's camera track gone") { host.channel?.remoteTrack(uid: "bob", desc: "camera_big") == nil }

        // requestShare(.screen): a screen track whose frames arrive; stopShare removes it.
        let screen = MeetingMediaCollector()
        try await bob.engine.requestShare(shareType: .screen, preset: Self.preset)
        #expect(bob.engine.screenTrack?.desc == "screen")
        try await host.events.wait(for: "share+ bob 1")
        _ = try await host.engine.startPlayRemoteVideo(view: screen, uid: "bob", trackDesc: .screen)
        try await eventually("bob's screen frames") { screen.numbers.count > 10 }
        await #expect(throws: SMeetingError.internalError("already sharing")) { try await bob.engine.requestShare() }
        await bob.engine.stopShare()
        try await host.events.wait(for: "share- bob")
        try await eventually("bob's screen track gone") { host.channel?.remoteTrack(uid: "bob", desc: "screen") == nil }

        // The SDK unpublishes by itself when a host closes my mic, or mutes everyone.
        try await bob.engine.requestOpenMic()
        try await eventually("bob's mic track back") { host.channel?.remoteTrack(uid: "bob", desc: "mic") != nil }
        try await host.engine.adminCloseMic(uid: "bob")
        try await eventually("unpublished after the host closed it") { bob.engine.micTrack == nil && host.channel?.remoteTrack(uid: "bob", desc: "mic") == nil }
        try await bob.engine.requestOpenMic()
        try await eventually("bob's mic track back again") { host.channel?.remoteTrack(uid: "bob", desc: "mic") != nil }
        try await host.engine.adminMuteAll(allowSelfUnmute: true)
        try await eventually("unpublished after mute all") { bob.engine.micTrack == nil && host.channel?.remoteTrack(uid: "bob", desc: "mic") == nil }
        try await host.engine.adminUnmuteAll()

        // View capture: a screen track without a sharing state, fed by the app's own view.
        let canvas = try Canvas()
        let captured = MeetingMediaCollector()
        let track = try await bob.engine.startViewCaptureShare(source: canvas)
        #expect(track.desc == "screen" && track === bob.engine.viewCaptureTrack)
        #expect(try await bob.engine.startViewCaptureShare() === track)
        try await eventually("bob captures a view") { (try? host.engine.getUserInfo("bob").viewCapture) == true }
        #expect(host.engine.getRoomInfo()?.sharingUid == nil)
        _ = try await host.engine.startPlayRemoteVideo(view: captured, uid: "bob", trackDesc: .screen)
        try await eventually("view frames") { captured.numbers.count > 5 }
        await #expect(throws: SMeetingError.apiError(code: 40901, message: "stop your view capture first")) {
            try await bob.engine.requestShare(shareType: .screen)
        }
        await bob.engine.stopViewCaptureShare()
        #expect(bob.engine.viewCaptureTrack == nil && !bob.engine.pushViewCaptureFrame(canvas.captureViewFrame()!))
        try await eventually("the view capture track gone") { host.channel?.remoteTrack(uid: "bob", desc: "screen") == nil }
        #expect(host.events.lines.filter { $0 == "share+ bob 1" }.count == 1, "a view capture is no sharing state")
        await server.stop()
    }

    @Test func remoteSubscriptionsFollowViewsAndCalls() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let carol = try await TestMember(server: server, uid: "carol")
        let meeting = try await host.host(MeetingCreateReq(title: "views"))
        try await carol.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await carol.engine.requestOpenCamera(preset: Self.preset)
        try await carol.engine.requestOpenMic()
        let pusher = try MeetingMediaPusher(engine: carol.engine, width: Self.preset.width, height: Self.preset.height)
        defer { pusher.stop() }
        let small = (Self.preset.width / 4) & ~1, smallHeight = (Self.preset.height / 4) & ~1

        // Two views: the subscription carries the big layer; stopping the big view drops it to
        // the small layer, stopping the small one too unsubscribes.
        let big = MeetingMediaCollector(), little = MeetingMediaCollector()
        let remote = try await host.engine.startPlayRemoteVideo(view: little, uid: "carol", trackDesc: .cameraSmall)
        _ = try await host.engine.startPlayRemoteVideo(view: big, uid: "carol", trackDesc: .cameraBig)
        try await eventually("both views") { big.count(width: Self.preset.width, height: Self.preset.height) > 10 && little.count(width: small, height: smallHeight) > 10 }
        #expect(remote.requestedLayer == .cameraBig)
        try await host.engine.stopPlayRemoteVideo(view: big, uid: "carol", trackDesc: .cameraBig)
        #expect(remote.isSubscribed && remote.requestedLayer == .cameraSmall)
        let bigFrames = big.count(width: Self.preset.width, height: Self.preset.height)
        let littleFrames = little.count(width: small, height: smallHeight)
        try await eventually("the small view goes on") { little.count(width: small, height: smallHeight) > littleFrames + 10 }
        #expect(big.count(width: Self.preset.width, height: Self.preset.height) <= bigFrames + 2)
        try await host.engine.stopPlayRemoteVideo(view: little, uid: "carol", trackDesc: .cameraSmall)
        #expect(!remote.isSubscribed)

        // unsubscribeRemoteVideoTrack ends the subscription whatever views remain.
        let view = MeetingMediaCollector()
        _ = try await host.engine.startPlayRemoteVideo(view: view, uid: "carol", trackDesc: .cameraBig)
        try await eventually("frames again") { view.numbers.count > 5 }
        try await host.engine.unsubscribeRemoteVideoTrack(uid: "carol", trackDesc: .cameraBig)
        #expect(!remote.isSubscribed)
        try await host.engine.unsubscribeRemoteVideoTrack(uid: "nobody", trackDesc: .screen)   // silent
        await #expect(throws: SMeetingError.internalError("carol has no screen track")) {
            try await host.engine.subscribeRemoteVideoTrack(uid: "carol", trackDesc: .screen)
        }

        // Remote audio: subscribed on entry; unsubscribing stops the packets, subscribing restarts them.
        let audio = PacketCounter(at: host, from: "carol", kind: .audio)
        try await audio.waitForMore(20, "carol's audio, subscribed on entry")
        try await host.engine.unsubscribeRemoteAudioTrack(uid: "carol")
        try await audio.expectSilence(seconds: 0.5, "after unsubscribeRemoteAudioTrack")
        try await host.engine.subscribeRemoteAudioTrack(uid: "carol")
        try await audio.waitForMore(20, "after subscribeRemoteAudioTrack")
        await #expect(throws: SMeetingError.internalError("nobody has no mic track")) { try await host.engine.subscribeRemoteAudioTrack(uid: "nobody") }
        try await host.engine.unsubscribeRemoteAudioTrack(uid: "nobody")   // silent
        await server.stop()
    }
}
