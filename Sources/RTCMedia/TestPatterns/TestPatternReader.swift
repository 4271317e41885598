// Recovers the frame number a `TestPatternGenerator` drew, from a picture that went through lossy coding.

/// Reads the frame number out of a (decoded) test-pattern picture.
public enum TestPatternReader {
    // MARK: - Public API

    /// The frame number in a picture, or nil when it holds no readable, consistent code.
    ///
    /// Each code cell is averaged over its central half; an average that is neither clearly dark (< 96) nor
    /// clearly bright (> 160) counts as unreadable, and the 8-bit check must match.
    public static func frameNumber(in buffer: VideoPixelBuffer) -> Int? {
        guard let layout = TestPatternLayout(width: buffer.width, height: buffer.height) else { return nil }
        let i420 = buffer.toI420()
        let width = i420.width
        return i420.withPlane(0) { luma -> Int? in
            var bits: [Bool] = []
            bits.reserveCapacity(32)
            for index in 0..<(TestPatternLayout.columns * TestPatternLayout.rows) {
                let (x0, y0) = layout.origin(ofBit: index)
                let insetX = layout.cellWidth / 4, insetY = layout.cellHeight / 4
                var sum = 0, count = 0
                for y in (y0 + insetY)..<(y0 + layout.cellHeight - insetY) {
                    for x in (x0 + insetX)..<(x0 + layout.cellWidth - insetX) {
                        sum += Int(luma[y * width + x])
                        count += 1
                    }
                }
                guard count > 0 else { return nil }
                let average = sum / count
                if average < 96 { bits.append(false) } else if average > 160 { bits.append(true) } else { return nil }
            }
            return TestPatternLayout.number(from: bits)
        }
    }

    /// The frame number in a video frame (see `frameNumber(in:)` for a buffer).
    public static func frameNumber(in frame: VideoFrame) -> Int? { frameNumber(in: frame.buffer) }
}
