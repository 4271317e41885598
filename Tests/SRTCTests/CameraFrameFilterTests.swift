import Foundation
import RTCMedia
import Synchronization
import Testing
@testable import SRTCCore

/// The engine's camera-filter slot, what `SRTCRender` plugs its render module into: camera tracks
/// (also those made before the slot was filled) pass their frames through the filter before their
/// processors, other tracks do not, and the slot keeps the first filter it was given.
@Suite struct CameraFrameFilterTests {
    /// Adds 40 to the first luma byte of each frame and counts the frames it saw.
    final class MarkingFilter: CameraFrameFilter, EngineAttachment {
        let seen = Atomic<Int>(0)
        init() {}
        func engineWillDestroy() {}
        func process(_ frame: VideoFrame) -> VideoFrame {
            seen.add(1, ordering: .relaxed)
            var out = frame
            out.buffer.withMutablePlane(0) { $0[0] &+= 40 }
            return out
        }
    }

    /// Another filter type, which must not replace the first.
    final class OtherFilter: CameraFrameFilter {
        func process(_ frame: VideoFrame) -> VideoFrame { frame }
    }

    let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "camera-filter")))

    /// The first luma byte of the frame the track's preview showed for a black frame, and whether
    /// the frame was delivered.
    func previewedLuma(of track: LocalCustomVideoTrack) throws -> UInt8? {
        let preview = FrameCollector()
        track.add(videoRenderer: preview)
        let input = VideoFrame(buffer: try VideoPixelBuffer.black(width: 64, height: 48), timestampUs: 0)
        guard track.pushFrame(input) else { return nil }
        return preview.frames.withLock { $0.first?.buffer.withPlane(0) { $0[0] } }
    }

    @Test func cameraTracksPassThroughTheFilterOnceItIsInTheSlot() throws {
        let early = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: .h180p)
        let black = try #require(try previewedLuma(of: early))
        let filter = engine.cameraFrameFilter(MarkingFilter.self)
        #expect(try previewedLuma(of: early) == black &+ 40)   // made before the slot was filled
        let late = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: .h180p)
        #expect(try previewedLuma(of: late) == black &+ 40)
        let canvas = engine.createLocalCustomVideoTrack(desc: "canvas", preset: .h180p)
        #expect(try previewedLuma(of: canvas) == black)
        #expect(filter.seen.load(ordering: .relaxed) == 2)
        #expect(engine.cameraFrameFilter(MarkingFilter.self) === filter)
    }

    @Test func theSlotKeepsTheFirstFilterItIsGiven() {
        let slot = CameraFrameFilterSlot()
        let first = MarkingFilter()
        #expect(slot.fill { first } === first)
        var madeAnother = false
        let kept = slot.fill {
            madeAnother = true
            return OtherFilter()
        }
        #expect(kept === first && !madeAnother)
    }
}
