#if os(Linux)
import Foundation
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// The engine's local preview in a real X server (Xvfb): what the screen shows is the camera's
/// picture, flipped left to right exactly when the mirror rule says so, while the frames the
/// track sends stay as captured.
@Suite(.serialized) struct LocalPreviewTests {
    static let width = 320, height = 180

    /// The frame number the screen shows and its mean absolute luma difference (0–255) from that
    /// frame as sent; `flipped` reads the screen flipped back left to right first.
    static func shown(_ xvfb: XvfbServer, _ generator: TestPatternGenerator, flipped: Bool) -> (number: Int, difference: Double)? {
        guard let shot = try? xvfb.screenshot() else { return nil }
        let screen = flipped ? Self.flipped(shot) : shot.toI420()
        guard let number = TestPatternReader.frameNumber(in: screen) else { return nil }
        let sent = generator.buffer(number: number)
        let difference = screen.withPlane(0) { shown in
            sent.withPlane(0) { original in zip(shown, original).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } }
        }
        return (number, Double(difference) / Double(screen.width * screen.height))
    }

    /// `picture` flipped left to right (I420).
    static func flipped(_ picture: VideoPixelBuffer) -> VideoPixelBuffer {
        let source = picture.toI420()
        var out = try! VideoPixelBuffer(format: .i420, width: source.width, height: source.height)
        for plane in 0...2 {
            let width = plane == 0 ? source.width : source.chromaWidth
            source.withPlane(plane) { from in
                out.withMutablePlane(plane) { to in
                    for i in 0..<to.count {
                        let (y, x) = i.quotientAndRemainder(dividingBy: width)
                        to[i] = from[y * width + width - 1 - x]
                    }
                }
            }
        }
        return out
    }

    /// Waits until the screen shows a frame after `after`, read as shown or flipped back, that is
    /// the frame as sent (a screenshot taken while a frame is being drawn can mix two pictures:
    /// the next one is looked at). A screen mirrored the other way never matches.
    static func waitForShown(_ xvfb: XvfbServer, _ generator: TestPatternGenerator, flipped: Bool, after: Int,
                             _ what: String) async throws -> Int {
        try await waitFor(timeout: 15, what) {
            Self.shown(xvfb, generator, flipped: flipped).flatMap { $0.number > after && $0.difference < 12 ? $0.number : nil }
        }
    }

    @Test func theFrontCameraIsShownMirroredAsPreferredAndSentAsCaptured() async throws {
        let xvfb = try await XvfbServer.start(width: Self.width, height: Self.height)
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "preview"), logLevel: .off))
        let generator = try TestPatternGenerator(width: Self.width, height: Self.height)
        let camera = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: Self.width, height: Self.height,
                                                                                                 frameRate: 30, maxBitrate: 500_000))
        let sent = SDKMediaCollector()
        camera.add(videoRenderer: sent)
        let view = try SRTCVideoRenderer(display: xvfb.display, width: Self.width, height: Self.height, title: "preview")
        #expect(engine.currentCameraDirection == nil && engine.localPreviewTrack == nil)

        // The front camera, mirrored by default: the screen reads only once flipped back.
        engine.startLocalPreview(track: camera, view: view)
        #expect(engine.currentCameraDirection == .front && engine.isLocalPreviewMirrored && view.mirrored)
        #expect(engine.localPreviewTrack === camera)
        let pusher = try SDKMediaPusher(video: camera, audio: nil, width: Self.width, height: Self.height)
        var last = try await Self.waitForShown(xvfb, generator, flipped: true, after: -1, "the mirrored preview")
        let asIs = Self.shown(xvfb, generator, flipped: false)
        #expect(asIs == nil || asIs!.difference > 30, "the mirrored screen read as is: \(String(describing: asIs))")
        // What the track sends is not mirrored: its frames read as they are.
        try await eventually("frames read from the track") { sent.numbers.count > 10 }
        #expect(sent.frameCount - sent.numbers.count <= 1)

        // The back camera is never mirrored, whatever the preference.
        engine.startLocalPreview(track: camera, direction: .back, view: view)
        #expect(engine.currentCameraDirection == .back && !engine.isLocalPreviewMirrored && !view.mirrored)
        last = try await Self.waitForShown(xvfb, generator, flipped: false, after: last, "the back camera unmirrored")

        // Front again, with the preference off: as is.
        engine.startLocalPreview(track: camera, direction: .front, view: view)
        last = try await Self.waitForShown(xvfb, generator, flipped: true, after: last, "the front camera mirrored again")
        engine.setLocalPreviewMirror(false)
        #expect(!view.mirrored)
        last = try await Self.waitForShown(xvfb, generator, flipped: false, after: last, "the front camera with the mirror off")
        engine.setLocalPreviewMirror(true)

        // Another view (on top of the first): it shows the preview mirrored, the first one stops.
        let second = try SRTCVideoRenderer(display: xvfb.display, width: Self.width, height: Self.height, title: "preview 2")
        try engine.updateLocalView(second)
        let firstDrawn = view.framesDrawn
        #expect(second.mirrored && !view.mirrored)
        last = try await Self.waitForShown(xvfb, generator, flipped: true, after: last, "the second view mirrored")
        try await eventually("the second view drawing") { second.framesDrawn > 20 }
        // At most the frame being drawn when the view was let go, and its redraw unmirrored.
        #expect(view.framesDrawn <= firstDrawn + 2, "the first view drew \(view.framesDrawn - firstDrawn) more frames")

        // Stopping lets the view go; the app's own track keeps capturing.
        engine.stopLocalPreview()
        #expect(engine.currentCameraDirection == nil && engine.localPreviewTrack == nil && !second.mirrored)
        let secondDrawn = second.framesDrawn, sentBefore = sent.frameCount
        try await eventually("the track still running") { sent.frameCount > sentBefore + 20 }
        #expect(second.framesDrawn <= secondDrawn + 2)
        #expect(throws: SRTCError.wrongState("no local preview")) { try engine.updateLocalView(view) }

        pusher.stop()
        view.close()
        second.close()
        await engine.destroy()
        await xvfb.stop()
    }

    @Test func withoutACameraThePreviewDoesNotStart() async {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "preview"), logLevel: .off))
        // This machine has no camera (a developer's may).
        if engine.getDevices(kind: .videoInput).isEmpty {
            await #expect(throws: SRTCError.notFound("no camera")) { try await engine.startLocalPreview(view: nil) }
            #expect(engine.currentCameraDirection == nil && engine.localPreviewTrack == nil)
        }
        await #expect(throws: SRTCError.wrongState("no camera preview opened by the engine")) { try await engine.switchCamera() }
        let custom = engine.createLocalCustomVideoTrack(desc: "camera_big")
        engine.startLocalPreview(track: custom, view: nil)
        await #expect(throws: SRTCError.wrongState("no camera preview opened by the engine")) { try await engine.switchCamera() }
        await engine.destroy()
        #expect(engine.localPreviewTrack == nil)
    }
}
#endif
