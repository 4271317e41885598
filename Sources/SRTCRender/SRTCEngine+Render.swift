import Foundation
import RTCMedia
import SRTCCore

/// The video render module (the documentation's beauty filter and virtual background APIs).
///
/// Both act on the shared camera pipeline, so settings apply to every channel at once: camera
/// tracks (`createLocalCameraTrack`, and custom tracks with a camera description such as
/// `camera_big`) pass the beauty filter, then the virtual background, then their
/// `videoProcessors`. Screen and other custom tracks are left alone.
///
/// ```swift
/// try srtc.installRenderModule()
/// try srtc.enabledBeauty(true)
/// srtc.setWhiteLevel(0.5)
/// try srtc.installVirtualBackground(nil)
/// srtc.setVirtualBackgroundBlur(7)
/// try srtc.enabledVirtualBackground(true)
/// ```
extension SRTCEngine {
    // MARK: - Render module

    /// Loads the video render module; the beauty filter can then be turned on. Calling it again
    /// changes nothing.
    /// - Parameters:
    ///   - authData: the license key of the documentation; this open build needs none and
    ///     ignores it.
    ///   - logLevel: accepted for the documented signature; the module logs through the engine.
    public func installRenderModule(authData: [UInt8] = [], logLevel: LogLevel = .warning) throws(SRTCError) {
        renderModule.update { $0.renderInstalled = true }
    }

    /// Unloads the render module; the beauty filter is off afterwards (its levels are kept).
    public func uninstallRenderModule() {
        renderModule.update {
            $0.renderInstalled = false
            $0.beautyEnabled = false
        }
    }

    /// Turns the beauty filter on or off.
    /// - Throws: `.conflict` when the render module is not installed.
    public func enabledBeauty(_ enabled: Bool) throws(SRTCError) {
        guard renderModule.current.renderInstalled else { throw .conflict("the render module is not installed") }
        renderModule.update { $0.beautyEnabled = enabled }
    }

    /// Whether the beauty filter is on.
    public func isBeautyEnabled() -> Bool {
        let state = renderModule.current
        return state.renderInstalled && state.beautyEnabled
    }

    /// Sets the smoothing level, 0.0–1.0 (default 0.5); out-of-range values are clamped, NaN is ignored.
    public func setBlurLevel(_ blurLevel: Float) { setBeauty(blurLevel) { $0.blur = $1 } }
    /// The smoothing level.
    public func getBlurLevel() -> Float { renderModule.current.beauty.blur }

    /// Sets the whitening level, 0.0–1.0 (default 0.3); clamped, NaN ignored.
    public func setWhiteLevel(_ whiteLevel: Float) { setBeauty(whiteLevel) { $0.white = $1 } }
    /// The whitening level.
    public func getWhiteLevel() -> Float { renderModule.current.beauty.white }

    /// Sets the rosiness level, 0.0–1.0 (default 0.3); clamped, NaN ignored.
    public func setRedLevel(_ redLevel: Float) { setBeauty(redLevel) { $0.red = $1 } }
    /// The rosiness level.
    public func getRedLevel() -> Float { renderModule.current.beauty.red }

    /// Sets the sharpening level, 0.0–1.0 (default 0.3); clamped, NaN ignored.
    public func setSharpenLevel(_ sharpenLevel: Float) { setBeauty(sharpenLevel) { $0.sharpen = $1 } }
    /// The sharpening level.
    public func getSharpenLevel() -> Float { renderModule.current.beauty.sharpen }

    /// Sets how strongly the colour filter applies, 0.0–1.0 (default 0.8); clamped, NaN ignored.
    public func setFilterLevel(_ filterLevel: Float) { setBeauty(filterLevel) { $0.filterLevel = $1 } }
    /// The colour filter level.
    public func getFilterLevel() -> Float { renderModule.current.beauty.filterLevel }

    /// Chooses the colour filter by name (`availableFilterNames`); `origin` (the default) is the
    /// original picture, and an unknown name selects `origin`.
    public func setFilterName(_ filterName: String) {
        let name = BeautyTables.filters[filterName] == nil ? "origin" : filterName
        renderModule.update { $0.beauty.filterName = name }
    }

    /// The colour filter in use.
    public func getFilterName() -> String { renderModule.current.beauty.filterName }

    /// The names `setFilterName(_:)` accepts: `origin`, `warm`, `cool`, `mono`, `sepia`, `vivid`, `fade`.
    public static var availableFilterNames: [String] { BeautyTables.filters.keys.sorted() }

    private func setBeauty(_ value: Float, _ apply: (inout BeautySettings, Float) -> Void) {
        guard !value.isNaN else { return }
        let clamped = min(1, max(0, value))
        renderModule.update { apply(&$0.beauty, clamped) }
    }

    // MARK: - Virtual background

    /// Installs the virtual background component with the platform's segmenter; it is off until
    /// `enabledVirtualBackground(true)`.
    ///
    /// With `modelPath` nil: Apple Vision person segmentation on Apple platforms, a
    /// `BackgroundModelSegmenter` that learns the empty scene from the first second of frames on
    /// Linux. With a path: a `BackgroundModelSegmenter` that takes the empty scene from that
    /// picture (a Y4M file, its first frame: the model of the background).
    /// - Throws: `.conflict` when a component is installed already (this call changes nothing),
    ///   `.notFound` when `modelPath` does not exist, `.systemError` when it cannot be read as a
    ///   picture (or Vision is unavailable).
    public func installVirtualBackground(_ modelPath: String? = nil) throws(SRTCError) {
        guard !renderModule.current.backgroundInstalled else { throw .conflict("the virtual background is installed already") }
        let segmenter: PersonSegmenter
        if let modelPath {
            guard FileManager.default.fileExists(atPath: modelPath) else { throw .notFound(modelPath) }
            let plate: VideoFrame?
            do {
                plate = try Y4MReader(path: modelPath).readFrame()
            } catch {
                throw .systemError("\(modelPath): \(error)")
            }
            guard let plate else { throw .systemError("\(modelPath) holds no picture") }
            segmenter = BackgroundModelSegmenter(backgroundPlate: plate.buffer)
        } else {
            segmenter = try Self.platformSegmenter()
        }
        try installVirtualBackground(segmenter: segmenter)
    }

    /// Installs the virtual background component with your own segmenter (an ML model, a depth
    /// camera's mask, a green screen key).
    /// - Throws: `.conflict` when a component is installed already.
    public func installVirtualBackground(segmenter: PersonSegmenter) throws(SRTCError) {
        guard renderModule.install(segmenter: segmenter) else { throw .conflict("the virtual background is installed already") }
    }

    /// Releases the segmenter and its buffers (also done by `destroy()`). The settings are kept.
    public func uninstallVirtualBackground() {
        renderModule.uninstallSegmenter()
    }

    /// Turns the virtual background on or off. Off is a pass-through that runs no inference, and
    /// forgets the last mask, so turning it on again converges from the first frame.
    /// - Throws: `.conflict` when the component is not installed.
    public func enabledVirtualBackground(_ enabled: Bool) throws(SRTCError) {
        guard renderModule.current.backgroundInstalled else { throw .conflict("the virtual background is not installed") }
        renderModule.setBackgroundEnabled(enabled)
    }

    /// Whether the virtual background is on.
    public func isVirtualBackgroundEnabled() -> Bool {
        let state = renderModule.current
        return state.backgroundInstalled && state.backgroundEnabled
    }

    /// Blurs the background: level 1–10 (default 5), clamped to the bounds. Replaces a background
    /// image (the later call wins). Remembered when called before installing.
    public func setVirtualBackgroundBlur(_ level: Int) {
        renderModule.update {
            $0.background.blurLevel = min(10, max(1, level))
            $0.background.image = nil
        }
    }

    /// Replaces the background with a picture scaled to cover the frame (cropped, not stretched);
    /// nil goes back to blur. Replaces the blur (the later call wins).
    public func setVirtualBackgroundImage(_ image: VideoPixelBuffer?) {
        let picture = image?.toI420()
        renderModule.update {
            $0.background.image = picture
            $0.background.imageGeneration &+= 1
        }
    }

    /// Runs segmentation once every `interval` frames (default 1; below 1 counts as 1).
    /// Compositing still runs on every frame, with the last mask.
    public func setVirtualBackgroundInferenceInterval(_ interval: Int) {
        renderModule.update { $0.background.interval = max(1, interval) }
    }

    /// With mask sync on, frames between inferences are not recomposited: the last composite is
    /// sent again, so picture and mask are always from the same moment (no trail behind a moving
    /// hand) at the cost of a video rate equal to the mask rate. No effect with interval 1.
    /// Default off.
    public func setVirtualBackgroundMaskSync(_ enabled: Bool) {
        renderModule.update { $0.background.maskSync = enabled }
    }

    /// This engine's render module, in the engine's camera-filter slot from the first call.
    var renderModule: RenderModule { cameraFrameFilter(RenderModule.self) }

    /// The segmenter `installVirtualBackground(nil)` installs on this platform.
    private static func platformSegmenter() throws(SRTCError) -> PersonSegmenter {
        #if canImport(Vision) && canImport(CoreVideo)
        return VisionPersonSegmenter()
        #else
        return BackgroundModelSegmenter()
        #endif
    }
}
