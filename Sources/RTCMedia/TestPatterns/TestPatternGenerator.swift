// Synthetic video for tests, benchmarks and the CLI's `--pattern` source: each frame carries its own frame
// number in a code band (see `TestPatternLayout`) above a moving picture, so a receiver can tell exactly
// which frames arrived, in which order, after real VP8 coding and transport.

/// Produces I420 frames that encode their frame number; `TestPatternReader` recovers it.
public struct TestPatternGenerator: Sendable {
    /// Width of the frames in pixels.
    public let width: Int
    /// Height of the frames in pixels.
    public let height: Int
    /// Frames per second, used for timestamps.
    public let frameRate: Int
    private let layout: TestPatternLayout

    // MARK: - Public API

    /// Creates a generator.
    /// - Parameters:
    ///   - width: at least 64 pixels.
    ///   - height: at least 48 pixels.
    ///   - frameRate: frames per second for `videoFrame(number:)` timestamps, 30 by default.
    /// - Throws: `PixelBufferError.invalidDimensions` for a size too small to hold the code.
    public init(width: Int, height: Int, frameRate: Int = 30) throws {
        try VideoPixelBuffer.checkDimensions(width: width, height: height)
        guard let layout = TestPatternLayout(width: width, height: height) else {
            throw PixelBufferError.invalidDimensions(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.frameRate = max(1, frameRate)
        self.layout = layout
    }

    /// The picture for frame `number` (0…16 777 215; higher numbers wrap).
    public func buffer(number: Int) -> VideoPixelBuffer {
        var buffer = try! VideoPixelBuffer(format: .i420, width: width, height: height)
        let (w, h, cw, ch) = (width, height, buffer.chromaWidth, buffer.chromaHeight)
        let shift = number &* 4
        let boxSize = max(8, h / 5)
        let boxX = (number &* 8 % max(1, w - boxSize) + max(1, w - boxSize)) % max(1, w - boxSize)
        let boxY = layout.bandHeight + (h - layout.bandHeight - boxSize) / 2
        buffer.withMutablePlane(0) { luma in
            for y in 0..<h {
                for x in 0..<w {
                    // A diagonal ramp drifting with time, kept inside video range.
                    luma[y * w + x] = UInt8(truncatingIfNeeded: 40 + ((x + y + shift) & 0x7F))
                }
            }
            for y in max(0, boxY)..<min(h, boxY + boxSize) {
                for x in boxX..<min(w, boxX + boxSize) { luma[y * w + x] = 220 }
            }
            let bits = TestPatternLayout.bits(for: number)
            for (index, bit) in bits.enumerated() {
                let (x0, y0) = layout.origin(ofBit: index)
                let value = bit ? TestPatternLayout.white : TestPatternLayout.black
                for y in y0..<(y0 + layout.cellHeight) {
                    for x in x0..<(x0 + layout.cellWidth) { luma[y * w + x] = value }
                }
            }
            // Paint the rest of the band's right edge (when the width is not a multiple of 16) black.
            for y in 0..<layout.bandHeight {
                for x in (layout.cellWidth * TestPatternLayout.columns)..<w { luma[y * w + x] = TestPatternLayout.black }
            }
        }
        let bandChromaRows = (layout.bandHeight + 1) / 2
        for planeIndex in 1...2 {
            buffer.withMutablePlane(planeIndex) { chroma in
                for y in 0..<ch {
                    for x in 0..<cw {
                        let colour = planeIndex == 1 ? (x * 2 + shift) & 0x3F : (y * 2 - shift) & 0x3F
                        chroma[y * cw + x] = y < bandChromaRows ? 128 : UInt8(96 + colour)
                    }
                }
            }
        }
        return buffer
    }

    /// Frame `number` as a `VideoFrame` stamped `number / frameRate` seconds after zero.
    public func videoFrame(number: Int) -> VideoFrame {
        VideoFrame(buffer: buffer(number: number), timestampUs: Int64(number) * 1_000_000 / Int64(frameRate))
    }
}
