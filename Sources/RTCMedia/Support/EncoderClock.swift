// What the real-time encoders over libvpx and libaom share around the C call: the 90 kHz
// timestamps they are handed and the plane layout of the packed I420 buffers they read in place.

/// The presentation timestamps of a real-time encoder, on the 90 kHz time base, from each frame's
/// microseconds: kept strictly increasing so rate control sees sane durations.
struct EncoderClock {
    private var lastPts: Int64 = .min

    /// Forgets the last timestamp (a re-created encoder starts afresh).
    mutating func reset() { lastPts = .min }

    /// The frame's timestamp and one frame's duration at `frameRate`.
    mutating func stamp(_ timestampUs: Int64, frameRate: Int) -> (pts: Int64, duration: Int64) {
        let duration = Int64(90_000 / max(1, frameRate))
        var pts = timestampUs.multipliedReportingOverflow(by: 9).partialValue / 100
        if lastPts != .min, pts <= lastPts { pts = lastPts + duration }
        lastPts = pts
        return (pts, duration)
    }
}

/// Where the Y, U and V planes of a packed I420 buffer (`VideoPixelBuffer`'s layout) start, and
/// their strides.
struct PackedI420Layout {
    let offsets: (Int, Int, Int)
    let strides: (Int32, Int32, Int32)

    init(width: Int, height: Int) {
        let chromaWidth = (width + 1) / 2
        offsets = (0, width * height, width * height + chromaWidth * ((height + 1) / 2))
        strides = (Int32(width), Int32(chromaWidth), Int32(chromaWidth))
    }
}
