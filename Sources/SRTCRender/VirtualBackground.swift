import RTCMedia

/// The virtual background's settings (`setVirtualBackgroundBlur(_:)` and the others). They are
/// kept whether or not the component is installed, so a choice made before installing applies
/// once it is.
struct VirtualBackgroundSettings: Sendable {
    /// 1…10.
    var blurLevel = 5
    /// The replacement picture (I420); nil blurs the background instead.
    var image: VideoPixelBuffer?
    /// Bumped on every `setVirtualBackgroundImage(_:)`, so the scaled copy is redone.
    var imageGeneration = 0
    /// Segmentation every `interval` frames (≥ 1).
    var interval = 1
    var maskSync = false
}

/// Replaces the background of I420 frames: a person mask from the segmenter, then
/// out = background + (frame − background) × mask / 255 on every plane (chroma with the mask
/// averaged over 2×2). The background is the frame blurred (two box passes, an approximate
/// Gaussian, radius = level × height / 240), or the chosen picture scaled to cover the frame.
///
/// Segmentation runs on every `interval`-th frame; the frames between reuse the last mask, or,
/// with mask sync, repeat the last composite so picture and mask always match. Buffers are kept
/// between frames.
final class VirtualBackground {
    let segmenter: PersonSegmenter
    private var frameIndex = 0
    private var hasMask = false
    /// `output` holds the composite of the last inference frame (what mask sync repeats).
    private var hasComposite = false
    private var mask: [UInt8] = [], chromaMask: [UInt8] = [], columns: [Int32] = [], blurPass: [UInt8] = []
    private var blurred: VideoPixelBuffer?
    private var cover: (generation: Int, picture: VideoPixelBuffer)?

    init(segmenter: PersonSegmenter) {
        self.segmenter = segmenter
    }

    // MARK: - Internals

    /// Forgets the mask, the frame count and the last composite (the component was turned off).
    func reset() {
        frameIndex = 0
        hasMask = false
        hasComposite = false
        segmenter.reset()
    }

    /// Composites `source` (I420) into `output` (I420, same size); leaves `output` as it is when
    /// mask sync repeats the last composite.
    func apply(_ source: VideoPixelBuffer, into output: inout VideoPixelBuffer, settings: VirtualBackgroundSettings) {
        let (w, h) = (source.width, source.height)
        if mask.count != w * h {
            mask = [UInt8](repeating: 255, count: w * h)
            chromaMask = [UInt8](repeating: 255, count: source.chromaWidth * source.chromaHeight)
            columns = [Int32](repeating: 0, count: w)
            hasMask = false
            hasComposite = false
            frameIndex = 0
        }
        let inference = frameIndex % max(1, settings.interval) == 0
        frameIndex &+= 1
        if inference {
            hasMask = mask.withUnsafeMutableBufferPointer { segmenter.segment(source, into: $0) }
            if hasMask { downsampleMask(width: w, height: h) }
        } else if settings.maskSync && hasComposite {
            return
        }
        guard hasMask else {
            output.withMutableData { data in _ = data.withUnsafeMutableBufferPointer { $0.update(fromContentsOf: source.data) } }
            hasComposite = false
            return
        }
        let background = backgroundPicture(for: source, settings: settings)
        for plane in 0..<3 {
            let weights = plane == 0 ? mask : chromaMask
            source.withPlane(plane) { fg in
                background.withPlane(plane) { bg in
                    output.withMutablePlane(plane) { out in
                        weights.withUnsafeBufferPointer { m in
                            Self.blend(fg.baseAddress!, bg.baseAddress!, m.baseAddress!, into: out.baseAddress!, count: out.count)
                        }
                    }
                }
            }
        }
        hasComposite = true
    }

    // MARK: - Stages

    private func downsampleMask(width w: Int, height h: Int) {
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        mask.withUnsafeBufferPointer { mask in
            chromaMask.withUnsafeMutableBufferPointer { chromaMask in
                for cy in 0..<ch {
                    let top = mask.baseAddress! + 2 * cy * w, bottom = mask.baseAddress! + min(2 * cy + 1, h - 1) * w
                    let out = chromaMask.baseAddress! + cy * cw
                    for cx in 0..<cw {
                        let x0 = 2 * cx, x1 = min(2 * cx + 1, w - 1)
                        let sum = Int(top[x0]) + Int(top[x1]) + Int(bottom[x0]) + Int(bottom[x1])
                        out[cx] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                    }
                }
            }
        }
    }

    private func backgroundPicture(for source: VideoPixelBuffer, settings: VirtualBackgroundSettings) -> VideoPixelBuffer {
        let (w, h) = (source.width, source.height)
        if let image = settings.image {
            if let cover, cover.generation == settings.imageGeneration, cover.picture.width == w, cover.picture.height == h {
                return cover.picture
            }
            let picture = CoverScaler.cover(image, width: w, height: h)
            cover = (settings.imageGeneration, picture)
            return picture
        }
        if blurred?.width != w || blurred?.height != h { blurred = try? VideoPixelBuffer(format: .i420, width: w, height: h) }
        guard var picture = blurred else { return source }
        blurred = nil   // keep the storage unique while writing
        let radius = max(1, settings.blurLevel * max(1, h / 240))
        if blurPass.count < w * h { blurPass = [UInt8](repeating: 0, count: w * h) }
        for plane in 0..<3 {
            let planeWidth = plane == 0 ? w : source.chromaWidth, planeHeight = plane == 0 ? h : source.chromaHeight
            let r = plane == 0 ? radius : max(1, radius / 2)
            source.withPlane(plane) { input in
                picture.withMutablePlane(plane) { out in
                    blurPass.withUnsafeMutableBufferPointer { temp in
                        columns.withUnsafeMutableBufferPointer { columns in
                            PlaneFilter.boxMean(input.baseAddress!, into: temp.baseAddress!, width: planeWidth, height: planeHeight,
                                                radius: r, columns: columns.baseAddress!)
                            PlaneFilter.boxMean(temp.baseAddress!, into: out.baseAddress!, width: planeWidth, height: planeHeight,
                                                radius: r, columns: columns.baseAddress!)
                        }
                    }
                }
            }
        }
        blurred = picture
        return picture
    }

    /// out = (fg × m + bg × (255 − m)) / 255, rounded, 16 samples at a time. The products fit
    /// 16 bits (≤ 255 × 255 + 128), and t / 255 is computed as (t + 1 + t >> 8) >> 8.
    private static func blend(_ fg: UnsafePointer<UInt8>, _ bg: UnsafePointer<UInt8>, _ weights: UnsafePointer<UInt8>,
                              into out: UnsafeMutablePointer<UInt8>, count: Int) {
        let full = SIMD16<UInt16>(repeating: 255), half = SIMD16<UInt16>(repeating: 128), one = SIMD16<UInt16>(repeating: 1)
        var i = 0
        while i + 16 <= count {
            let f = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(fg + i).loadUnaligned(as: SIMD16<UInt8>.self))
            let b = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(bg + i).loadUnaligned(as: SIMD16<UInt8>.self))
            let m = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(weights + i).loadUnaligned(as: SIMD16<UInt8>.self))
            let t = f &* m &+ b &* (full &- m) &+ half
            let value = (t &+ one &+ (t &>> 8)) &>> 8
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: value), as: SIMD16<UInt8>.self)
            i += 16
        }
        while i < count {
            let m = Int(weights[i])
            let t = Int(fg[i]) * m + Int(bg[i]) * (255 - m) + 128
            out[i] = UInt8((t + 1 + (t >> 8)) >> 8)
            i += 1
        }
    }
}
