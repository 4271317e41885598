import RTCMedia
import SRTCCore
import Synchronization

/// The engine's render module: the beauty filter, then the virtual background, applied to every
/// camera frame before the track's `videoProcessors`, so every channel the camera is published
/// in (and the local preview) gets the same picture. One per engine (`SRTCEngine.renderModule`,
/// an engine attachment), in the engine's camera-filter slot from its first use.
///
/// Settings may change from any thread; each frame reads one consistent copy. Frames are
/// processed one at a time (the camera is one shared pipeline). When neither effect is on, a
/// frame passes through untouched after one atomic load: no copy, no lock, no inference.
final class RenderModule: CameraFrameFilter, EngineAttachment {
    // MARK: - Types

    struct State: Sendable {
        var renderInstalled = false
        var beautyEnabled = false
        var beauty = BeautySettings()
        var backgroundInstalled = false
        var backgroundEnabled = false
        var background = VirtualBackgroundSettings()

        var isActive: Bool { (renderInstalled && beautyEnabled) || (backgroundInstalled && backgroundEnabled) }
    }

    /// What only the processing thread touches: the filters and their buffers.
    // @unchecked Sendable: a Pipeline lives only inside `pipeline` (a Mutex), and the filters and buffers it holds are used only with that lock held.
    private struct Pipeline: @unchecked Sendable {
        var beauty = BeautyFilter()
        var background: VirtualBackground?
        var beautyOutput: VideoPixelBuffer?
        var backgroundOutput: VideoPixelBuffer?
    }

    // MARK: - Properties

    private let state = Mutex(State())
    private let active = Atomic<Bool>(false)
    private let pipeline = Mutex(Pipeline())

    init() {}

    // MARK: - Engine attachment

    /// Nothing to stop: the camera keeps being masked while the channels leave.
    func engineWillDestroy() {}

    /// The engine is gone: release the segmenter and its buffers (what `destroy()` promises).
    func engineDidDestroy() { uninstallSegmenter() }

    // MARK: - Settings

    /// A copy of the settings.
    var current: State { state.withLock { $0 } }

    /// Changes the settings; the pass-through flag follows.
    func update(_ body: (inout State) -> Void) {
        let isActive = state.withLock { s -> Bool in
            body(&s)
            return s.isActive
        }
        active.store(isActive, ordering: .releasing)
    }

    /// Installs a segmenter (the virtual background component).
    /// - Returns: false when one is installed already.
    func install(segmenter: PersonSegmenter) -> Bool {
        let installed = pipeline.withLock { p -> Bool in
            guard p.background == nil else { return false }
            p.background = VirtualBackground(segmenter: segmenter)
            return true
        }
        if installed { update { $0.backgroundInstalled = true } }
        return installed
    }

    /// Releases the segmenter and its buffers; the virtual background is off afterwards.
    func uninstallSegmenter() {
        update {
            $0.backgroundInstalled = false
            $0.backgroundEnabled = false
        }
        pipeline.withLock {
            $0.background = nil
            $0.backgroundOutput = nil
        }
    }

    /// Turns the virtual background on or off; off clears its inter-frame state.
    func setBackgroundEnabled(_ enabled: Bool) {
        update { $0.backgroundEnabled = enabled }
        if !enabled { pipeline.withLock { $0.background?.reset() } }
    }

    // MARK: - Processing

    /// The frame with the enabled effects applied, as I420 (the same frame when none is on).
    func process(_ frame: VideoFrame) -> VideoFrame {
        guard active.load(ordering: .acquiring) else { return frame }
        let settings = current
        let beautyOn = settings.renderInstalled && settings.beautyEnabled
        let backgroundOn = settings.backgroundInstalled && settings.backgroundEnabled
        return pipeline.withLock { p -> VideoFrame in
            var picture = frame.buffer.toI420()
            if beautyOn {
                var output = Self.take(&p.beautyOutput, like: picture)
                p.beauty.apply(picture, into: &output, settings: settings.beauty)
                picture = output
                p.beautyOutput = output
            }
            if backgroundOn, let background = p.background {
                var output = Self.take(&p.backgroundOutput, like: picture)
                background.apply(picture, into: &output, settings: settings.background)
                picture = output
                p.backgroundOutput = output
            }
            return VideoFrame(buffer: picture, timestampUs: frame.timestampUs, rotation: frame.rotation)
        }
    }

    /// The kept output buffer when its size fits (taken out of its slot, so writing to it does
    /// not copy unless a renderer still holds the previous frame), else a new one.
    private static func take(_ slot: inout VideoPixelBuffer?, like picture: VideoPixelBuffer) -> VideoPixelBuffer {
        if let kept = slot, kept.width == picture.width, kept.height == picture.height {
            slot = nil
            return kept
        }
        slot = nil
        return (try? VideoPixelBuffer(format: .i420, width: picture.width, height: picture.height)) ?? picture
    }
}
