#if os(Linux)
import Foundation
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Synchronization
import Testing

/// Linux video devices: screen capture and the native video view against a real X server (Xvfb)
/// each test starts, and V4L2 cameras on a machine that has none.
@Suite(.serialized) struct DeviceVideoTests {
    func engine() -> SRTCEngine {
        SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "device-video"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
    }

    /// Shows frames in `view` from a thread until stopped.
    final class ViewFeeder: @unchecked Sendable {
        private let running = Atomic<Bool>(true)

        init(_ view: SRTCVideoRenderer, width: Int, height: Int, fps: Int) throws {
            let pattern = try TestPatternGenerator(width: width, height: height)
            Thread { [self] in
                var n = 0
                while running.load(ordering: .relaxed) {
                    view.render(frame: pattern.videoFrame(number: n))
                    n += 1
                    usleep(UInt32(1_000_000 / fps))
                }
            }.start()
        }

        func stop() { running.store(false, ordering: .relaxed) }
    }

    @Test func aWindowCapturedAsAScreenShareIsDecodedByAnotherParticipant() async throws {
        let xvfb = try await XvfbServer.start(width: 320, height: 240)
        let server = try SDKTestServer()
        let a = engine(), b = engine()
        let channelA = try a.createChannel(), channelB = try b.createChannel()
        let subscriber = SDKAutoSubscriber()
        channelB.delegates.add(delegate: subscriber)
        try await channelA.join(url: server.url, token: server.token(uid: "a", channel: "screen"))
        try await channelB.join(url: server.url, token: server.token(uid: "b", channel: "screen"))

        // A window covering the whole screen shows numbered frames.
        let window = try SRTCVideoRenderer(display: xvfb.display, x: 0, y: 0, width: 320, height: 240, title: "pattern")
        let feeder = try ViewFeeder(window, width: 320, height: 240, fps: 15)
        let screen = a.createLocalScreenTrack(preset: VideoPreset(width: 320, height: 240, frameRate: 15, maxBitrate: 400_000))
        try await screen.startCapture(display: xvfb.display)
        try await channelA.publishLocalTrack(screen)

        try await eventually(timeout: 15, "screen frames decoded by B") { Set(subscriber.collector.numbers).count >= 15 }
        // A capture can see a window frame twice or miss one: the numbers never go back.
        let numbers = subscriber.collector.numbers
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 <= $1 }, "numbers \(numbers)")
        #expect(subscriber.collector.sizes.allSatisfy { $0 == (320, 240) })

        screen.stopCapture()
        feeder.stop()
        window.close()
        await channelA.leave()
        await channelB.leave()
        await server.stop()
        await xvfb.stop()
    }

    @Test func aRemoteTrackRenderedInTheVideoViewShowsUpOnTheScreen() async throws {
        let xvfb = try await XvfbServer.start(width: 320, height: 180)
        let server = try SDKTestServer()
        let a = engine(), b = engine()
        let channelA = try a.createChannel(), channelB = try b.createChannel()
        let events = SDKEventRecorder()
        channelB.delegates.add(delegate: events)
        try await channelA.join(url: server.url, token: server.token(uid: "a", channel: "view"))
        try await channelB.join(url: server.url, token: server.token(uid: "b", channel: "view"))
        let video = a.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 500_000))
        try await channelA.publishLocalTrack(video)
        try await events.wait(for: "track+ a canvas")

        let view = try SRTCVideoRenderer(display: xvfb.display, x: 0, y: 0, width: 320, height: 180, title: "remote")
        let remote = try #require(channelB.remoteTrack(uid: "a", desc: "canvas") as? RemoteVideoTrack)
        remote.add(videoRenderer: view)
        try await channelB.subscribe(remote)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180)

        try await eventually(timeout: 15, "frames drawn") { view.framesDrawn > 15 }
        let first = try #require(TestPatternReader.frameNumber(in: try xvfb.screenshot()))
        try await eventually(timeout: 10, "the screen moving on") {
            ((try? xvfb.screenshot()).flatMap { TestPatternReader.frameNumber(in: $0) } ?? 0) > first + 5
        }
        #expect(first <= pusher.framesPushed)

        pusher.stop()
        view.close()
        #expect(view.isClosed)
        await channelA.leave()
        await channelB.leave()
        await server.stop()
        await xvfb.stop()
    }

    @Test func aMissingDisplayIsASystemError() async {
        await #expect(throws: SRTCError.self) { try await engine().createLocalScreenTrack().startCapture(display: ":9999") }
        #expect(throws: SRTCError.systemError("cannot open X display :9999")) { try SRTCVideoRenderer(display: ":9999") }
    }

    @Test func withoutCamerasTheListIsEmptyAndOpeningOneFails() async throws {
        let engine = engine()
        let cameras = engine.getDevices(kind: .videoInput)   // this machine has no camera; a developer's may
        #expect(cameras.allSatisfy { $0.kind == .videoInput && $0.deviceId.hasPrefix("/dev/video") })
        let camera = engine.createLocalCameraTrack()
        await #expect(throws: SRTCError.notFound("camera /dev/video-none")) { try await camera.startCapture(deviceId: "/dev/video-none") }
        // A node that is not a camera (here a plain file) is refused, not crashed on.
        let fake = NSTemporaryDirectory() + "srtc-video-\(UUID().uuidString.prefix(6))"
        _ = FileManager.default.createFile(atPath: fake, contents: Data(repeating: 0, count: 64))
        defer { try? FileManager.default.removeItem(atPath: fake) }
        do {
            try await camera.startCapture(deviceId: fake)
            Issue.record("a plain file opened as a camera")
        } catch {
            #expect(error.code == 1011)
        }
        #expect(camera.deviceId == nil)
        await #expect(throws: SRTCError.wrongState("the camera is not capturing")) { try await camera.switchCamera() }
    }
}
#endif
