#if os(Linux)
import Foundation
import RTCMedia
import SRTC
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Adaptive stream with the Swift SDK (docs/sdk-srtc.md "Adaptive stream"): a remote simulcast
/// video shown in the native view (an X11 window on a real X server, Xvfb) is asked of the server
/// at the smallest layer that fills the window, follows the window's resizes, pauses at the server
/// while the window is off screen (no receive timeout reported), and resumes when it is back.
@Suite(.serialized) struct SDKAdaptiveStreamTests {
    @Test func theViewsSizeAndVisibilityPickTheLayer() async throws {
        let xvfb = try await XvfbServer.start(width: 800, height: 480)
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer(receiveTimeout: 1, adaptiveStream: true)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "adaptive"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "adaptive"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        try await a.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        try await b.events.wait(for: "track+ a camera_big")

        // A 160×90 tile: the small layer; the publisher stops encoding the big one (dynacast).
        let view = try SRTCVideoRenderer(display: xvfb.display, x: 0, y: 0, width: 160, height: 90, title: "tile")
        defer { view.close() }
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        remote.add(videoRenderer: view)
        try await b.channel.subscribe(remote)
        try await eventually(timeout: 15, "the view is on screen: \(String(describing: view.shownSize))") { view.shownSize.map { $0 == (160, 90) } ?? false }
        try await eventually(timeout: 15, "small frames decoded: \(remote.frameSize)") { remote.frameSize == (160, 90) && remote.framesDecoded > 15 }
        #expect(remote.requestedLayer == .cameraSmall)
        try await eventually("the publisher pauses camera_big") { video.sendPipeline.stats.pausedLayers == [0] }

        // The tile grows past the small layer's width: the big layer.
        view.resize(width: 640, height: 360)
        try await eventually(timeout: 15, "big frames decoded: \(remote.frameSize)") { remote.frameSize == (640, 360) }
        #expect(remote.requestedLayer == .cameraBig)

        // Off screen: paused at the server, nothing decoded, no receive timeout (1 s here).
        let statuses = b.events.receiveStatuses.count
        view.hide()
        try await eventually("paused while hidden") { remote.isAdaptivePaused }
        var stopped = remote.framesDecoded
        for _ in 0 ..< 50 {   // until no frame arrives for 300 ms (those in flight when paused)
            try await Task.sleep(for: .milliseconds(300))
            if remote.framesDecoded == stopped { break }
            stopped = remote.framesDecoded
        }
        try await Task.sleep(for: .seconds(2))   // twice the receive timeout
        #expect(remote.framesDecoded == stopped, "frames decoded while hidden: \(stopped) → \(remote.framesDecoded)")
        #expect(!remote.isReceiveTimedOut)
        #expect(b.events.receiveStatuses.count == statuses, "no receive-status change while paused: \(b.events.receiveStatuses)")

        // Back on screen: resumed at the big layer and drawn.
        let drawn = view.framesDrawn
        view.show()
        try await eventually(timeout: 15, "frames again after show") { remote.framesDecoded > stopped + 15 && !remote.isAdaptivePaused }
        #expect(remote.frameSize == (640, 360))
        try await eventually(timeout: 10, "frames drawn in the window again") { view.framesDrawn > drawn + 15 }
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
        await xvfb.stop()
    }
}
#endif
