import RTCMedia

/// A person segmenter for a fixed camera, without a neural network: it learns what the empty
/// scene looks like, and whatever differs from it is the person. The virtual background's
/// built-in segmenter on Linux.
///
/// How it works: each pixel keeps a background colour (luma at full resolution, chroma at
/// quarter resolution) and its usual deviation, learnt as running averages over the first
/// `learningFrames` frames, or taken at once from a picture of the empty scene (a *background
/// plate*). A pixel is foreground when |ΔY| + 2 × (|ΔU| + |ΔV|) exceeds `threshold` plus three
/// times its usual deviation. A 5×5 majority vote removes specks and fills pinholes, and a 3×3
/// mean softens the edge. Pixels judged background keep adapting (1/64 per frame) so slow light
/// changes are followed.
///
/// Its limits, which an ML segmenter does not have:
/// - The camera must not move, zoom or refocus; the scene behind the person must stay put.
/// - Nobody may be in the picture while it learns (the first second after the virtual
///   background is first enabled), unless a background plate is given.
/// - Clothing the colour of the wall behind it is taken for background; strong shadows and
///   reflections the person casts are taken for the person.
/// - Sudden light changes (a lamp switched on) make the whole picture foreground until the model
///   is learnt again (`relearn()`, or reinstalling).
/// - A frame size change starts the learning over (a plate is rescaled instead).
public final class BackgroundModelSegmenter: PersonSegmenter {
    // MARK: - Types

    /// Tuning of the model.
    public struct Configuration: Sendable {
        /// Frames averaged into the model before it answers (30: one second at 30 fps).
        public var learningFrames: Int
        /// The colour difference (in 8-bit steps, |ΔY| + 2 × chroma) above which a pixel with
        /// no usual deviation is foreground.
        public var threshold: Int

        public init(learningFrames: Int = 30, threshold: Int = 30) {
            self.learningFrames = max(1, learningFrames)
            self.threshold = max(1, threshold)
        }
    }

    // MARK: - Properties

    public let configuration: Configuration
    private let plate: VideoPixelBuffer?
    private var width = 0, height = 0
    private var learnt = 0
    /// The model and the scratch planes, in one allocation sized for the frames (raw memory: the
    /// per-pixel loops stay free of array uniqueness and exclusivity checks). Background luma and
    /// chroma ×16, the usual luma deviation ×16, the binary and cleaned masks, a row of sums.
    private var storage: UnsafeMutableRawPointer?
    private var meanY: UnsafeMutablePointer<Int32> { storage!.assumingMemoryBound(to: Int32.self) }
    private var deviation: UnsafeMutablePointer<Int32> { meanY + width * height }
    private var meanU: UnsafeMutablePointer<Int32> { deviation + width * height }
    private var meanV: UnsafeMutablePointer<Int32> { meanU + chromaCount }
    private var columns: UnsafeMutablePointer<Int32> { meanV + chromaCount }
    private var binary: UnsafeMutablePointer<UInt8> { UnsafeMutableRawPointer(columns + width).assumingMemoryBound(to: UInt8.self) }
    private var cleaned: UnsafeMutablePointer<UInt8> { binary + width * height }
    private var chromaCount: Int { ((width + 1) / 2) * ((height + 1) / 2) }

    /// A segmenter that learns the empty scene from the first frames it sees.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.plate = nil
    }

    /// A segmenter that knows the empty scene from a picture of it (any format and size; it is
    /// scaled to the frames), so it answers from the first frame.
    public init(backgroundPlate: VideoPixelBuffer, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.plate = backgroundPlate.toI420()
    }

    deinit {
        storage?.deallocate()
    }

    // MARK: - Public API

    /// Whether the model is complete and masks are produced.
    public var isReady: Bool { width > 0 && learnt >= configuration.learningFrames }

    /// Forgets the learnt scene: the next frames are learnt again (or the plate is used again).
    public func relearn() {
        width = 0
        learnt = 0
    }

    public func segment(_ frame: VideoPixelBuffer, into mask: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let frame = frame.toI420()
        let (w, h) = (frame.width, frame.height)
        guard mask.count >= w * h else { return false }
        if w != width || h != height { start(width: w, height: h) }
        if learnt < configuration.learningFrames {
            learn(frame)
            return false
        }
        classify(frame)
        clean(into: mask)
        adapt(frame)
        return true
    }

    /// The learnt model stays (it is what was installed); nothing else crosses frames.
    public func reset() {}

    // MARK: - Internals

    private func start(width w: Int, height h: Int) {
        storage?.deallocate()
        width = w
        height = h
        learnt = 0
        let ints = 2 * w * h + 2 * chromaCount + w
        let bytes = ints * MemoryLayout<Int32>.stride + 2 * w * h
        storage = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: MemoryLayout<Int32>.alignment)
        storage!.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        if let plate {
            learn(plate.scaled(width: w, height: h))
            learnt = configuration.learningFrames
        }
    }

    /// Running averages: the k-th frame weighs 1/k, so the model is the plain mean of the
    /// learning frames (and the deviation their mean absolute difference from it).
    private func learn(_ frame: VideoPixelBuffer) {
        learnt += 1
        let k = Int32(learnt)
        let (meanY, deviation, meanU, meanV, count, chroma) = (self.meanY, self.deviation, self.meanU, self.meanV, width * height, chromaCount)
        frame.data.withUnsafeBufferPointer { pixels in
            let u = pixels.baseAddress! + count, v = u + chroma
            for i in 0..<count {
                let value = Int32(pixels[i]) << 4
                meanY[i] += (value - meanY[i]) / k
                deviation[i] += (abs(value - meanY[i]) - deviation[i]) / k
            }
            for i in 0..<chroma {
                meanU[i] += (Int32(u[i]) << 4 - meanU[i]) / k
                meanV[i] += (Int32(v[i]) << 4 - meanV[i]) / k
            }
        }
    }

    private func classify(_ frame: VideoPixelBuffer) {
        let (w, cw, chroma) = (width, (width + 1) / 2, chromaCount)
        let (meanY, deviation, meanU, meanV, binary) = (self.meanY, self.deviation, self.meanU, self.meanV, self.binary)
        let threshold = Int32(configuration.threshold) << 4
        frame.data.withUnsafeBufferPointer { pixels in
            let u = pixels.baseAddress! + width * height, v = u + chroma
            for y in 0..<height {
                let row = y &* w, chromaRow = (y &>> 1) &* cw
                let luma = pixels.baseAddress! + row, model = meanY + row, spread = deviation + row, out = binary + row
                let uRow = u + chromaRow, vRow = v + chromaRow, uModel = meanU + chromaRow, vModel = meanV + chromaRow
                for x in 0..<w {
                    let c = x &>> 1
                    let dy = Self.distance(Int32(luma[x]) &<< 4, model[x])
                    let dc = Self.distance(Int32(uRow[c]) &<< 4, uModel[c]) &+ Self.distance(Int32(vRow[c]) &<< 4, vModel[c])
                    out[x] = dy &+ 2 &* dc > threshold &+ 3 &* spread[x] ? 255 : 0
                }
            }
        }
    }

    /// |a − b| without a branch or an overflow trap (the values are small).
    @inline(__always)
    private static func distance(_ a: Int32, _ b: Int32) -> Int32 {
        let d = a &- b, sign = d &>> 31
        return (d ^ sign) &- sign
    }

    /// Majority vote over 5×5, then a 3×3 mean for a soft edge.
    private func clean(into mask: UnsafeMutableBufferPointer<UInt8>) {
        let (binary, cleaned, count) = (self.binary, self.cleaned, width * height)
        PlaneFilter.boxMean(binary, into: cleaned, width: width, height: height, radius: 2, columns: columns)
        for i in 0..<count { cleaned[i] = cleaned[i] > 127 ? 255 : 0 }
        PlaneFilter.boxMean(cleaned, into: mask.baseAddress!, width: width, height: height, radius: 1, columns: columns)
    }

    /// Background pixels follow slow changes of light.
    private func adapt(_ frame: VideoPixelBuffer) {
        let (w, cw, chroma, count) = (width, (width + 1) / 2, chromaCount, width * height)
        let (meanY, meanU, meanV, cleaned) = (self.meanY, self.meanU, self.meanV, self.cleaned)
        frame.data.withUnsafeBufferPointer { pixels in
            let u = pixels.baseAddress! + count, v = u + chroma
            for i in 0..<count where cleaned[i] == 0 {
                meanY[i] += (Int32(pixels[i]) << 4 - meanY[i]) >> 6
            }
            for c in 0..<chroma where cleaned[(c / cw) * 2 * w + (c % cw) * 2] == 0 {
                meanU[c] += (Int32(u[c]) << 4 - meanU[c]) >> 6
                meanV[c] += (Int32(v[c]) << 4 - meanV[c]) >> 6
            }
        }
    }
}
