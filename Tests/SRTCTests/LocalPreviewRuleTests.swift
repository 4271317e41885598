import Foundation
@testable import SRTCCore
import RTCMedia
import Synchronization
import Testing

/// The preview's rules apart from any window: which view is mirrored when, and which views get
/// the camera's frames.
struct LocalPreviewRuleTests {
    /// A view that records what the preview set and what it was shown.
    final class View: MirrorableRenderer, @unchecked Sendable {
        private let state = Mutex((mirrored: false, frames: 0))
        var mirrored: Bool {
            get { state.withLock { $0.mirrored } }
            set { state.withLock { $0.mirrored = newValue } }
        }
        var frames: Int { state.withLock { $0.frames } }
        func render(frame: VideoFrame) { state.withLock { $0.frames += 1 } }
    }

    static func frame() throws -> VideoFrame {
        VideoFrame(buffer: try VideoPixelBuffer(format: .i420, width: 64, height: 48), timestampUs: 0)
    }

    @Test func onlyTheFrontCameraIsMirroredAndOnlyWhenPreferred() {
        #expect(LocalPreview.mirrors(.front, preference: true))
        #expect(!LocalPreview.mirrors(.front, preference: false))
        #expect(!LocalPreview.mirrors(.back, preference: true))
        #expect(!LocalPreview.mirrors(nil, preference: true))
    }

    @Test func theRuleFollowsSwitchesViewsAndThePreference() throws {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "rules"), logLevel: .off))
        let camera = engine.createLocalCustomVideoTrack(desc: "camera_big")
        let first = View(), second = View()
        engine.startLocalPreview(track: camera, view: first)
        #expect(first.mirrored)
        _ = camera.pushFrame(try Self.frame())
        #expect(first.frames == 1)

        engine.preview.cameraSwitched(to: .back)          // after a switch to the back camera
        #expect(!first.mirrored && engine.currentCameraDirection == .back)
        engine.setLocalPreviewMirror(false)
        engine.preview.cameraSwitched(to: .front)         // the preference is kept across switches
        #expect(!first.mirrored)
        engine.setLocalPreviewMirror(true)
        #expect(first.mirrored)

        try engine.updateLocalView(second)
        #expect(second.mirrored && !first.mirrored)        // the old view is shown as is again
        _ = camera.pushFrame(try Self.frame())
        #expect(first.frames == 1 && second.frames == 1)
        try engine.updateLocalView(nil)
        #expect(!second.mirrored)
        _ = camera.pushFrame(try Self.frame())
        #expect(second.frames == 1)

        engine.stopLocalPreview()
        #expect(engine.currentCameraDirection == nil)
        #expect(throws: SRTCError.wrongState("no local preview")) { try engine.updateLocalView(first) }
    }
}
