import RTCMedia
import Synchronization

/// What a camera track asks of the render role (`SRTCRender`: beauty filter, virtual background)
/// for each frame, before its `videoProcessors`: the engine calls it without knowing the module,
/// which fills the engine's slot (`SRTCEngine.cameraFrameFilter(_:)`) on first use.
package protocol CameraFrameFilter: AnyObject, Sendable {
    /// The frame with the filter's effects applied, or the same frame when none is on. Called on
    /// the pushing thread of every camera track; it must not block on the network nor `await`.
    func process(_ frame: VideoFrame) -> VideoFrame
}

/// The engine's camera-filter slot, shared by its camera tracks (through `EngineContext`, so a
/// track made before the slot was filled gets the filter too). Filled at most once, so the
/// per-frame read is one atomic load and no lock; empty, a frame passes untouched.
final class CameraFrameFilterSlot: Sendable {
    /// A class around the existential, which `AtomicLazyReference` cannot hold directly.
    private final class Filled: Sendable {
        let filter: any CameraFrameFilter
        init(_ filter: any CameraFrameFilter) { self.filter = filter }
    }

    private let slot = AtomicLazyReference<Filled>()

    /// The filter in the slot: `make`'s, made only when the slot is empty.
    func fill(_ make: () -> any CameraFrameFilter) -> any CameraFrameFilter {
        if let filled = slot.load() { return filled.filter }
        return slot.storeIfNil(Filled(make())).filter
    }

    /// `frame` through the filter, if the slot is filled.
    func apply(_ frame: VideoFrame) -> VideoFrame {
        guard let filled = slot.load() else { return frame }
        return filled.filter.process(frame)
    }
}
