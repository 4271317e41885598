// The superframe index that ends a VP9 chunk holding several frames (VP9 bitstream spec, Annex B):
// libvpx's SVC encoder returns the layer frames of one picture as one superframe, which an RTP
// sender cuts back into layer frames (RFC 9628 §4: one layer frame per payload sequence).
//
//   frame 0 | frame 1 | … | marker | size 0 | size 1 | … | marker
//   marker = 0b110 mm fff: mm + 1 bytes per size (little-endian), fff + 1 frames.

/// Reads a VP9 superframe index without allocating.
public enum VP9Superframe {
    /// Calls `body` with the byte range of each frame of `data` in order: the frames of its
    /// superframe index, or `data` whole when it has none (one frame). Returns the number of frames;
    /// an index whose sizes do not add up within `data` counts as none.
    @discardableResult
    public static func forEachFrame(in data: UnsafeRawBufferPointer, _ body: (Range<Int>) throws -> Void) rethrows -> Int {
        guard let sizes = index(of: data) else {
            if !data.isEmpty { try body(0 ..< data.count) }
            return data.isEmpty ? 0 : 1
        }
        var start = 0
        for i in 0 ..< sizes.frames {
            let size = sizes.size(i)
            try body(start ..< start + size)
            start += size
        }
        return sizes.frames
    }

    /// Appends the superframe index of frames of `sizes` (in order, each 1 ... 2^32 − 1 bytes, at
    /// most 8 frames) to `out`, which holds those frames: sizes in the fewest bytes that hold the
    /// largest, as libvpx writes them.
    public static func appendIndex(frameSizes sizes: some Collection<Int>, to out: inout [UInt8]) {
        precondition((1 ... 8).contains(sizes.count) && sizes.allSatisfy { $0 > 0 && $0 <= Int(UInt32.max) }, "not a superframe")
        let largest = sizes.max() ?? 0
        let bytesPerSize = largest < 1 << 8 ? 1 : largest < 1 << 16 ? 2 : largest < 1 << 24 ? 3 : 4
        let marker = 0xC0 | UInt8(bytesPerSize - 1) << 3 | UInt8(sizes.count - 1)
        out.append(marker)
        for size in sizes {
            for byte in 0 ..< bytesPerSize { out.append(UInt8(truncatingIfNeeded: size >> (8 * byte))) }
        }
        out.append(marker)
    }

    /// The index at the end of `data`: its frame count and where its sizes lie; nil when there is
    /// none or it is inconsistent.
    static func index(of data: UnsafeRawBufferPointer) -> Index? {
        guard let marker = data.last, marker & 0xE0 == 0xC0 else { return nil }
        let frames = Int(marker & 0x07) + 1
        let bytesPerSize = Int(marker >> 3 & 0x03) + 1
        let indexLength = 2 + bytesPerSize * frames
        guard data.count >= indexLength, data[data.count - indexLength] == marker else { return nil }
        let index = Index(data: data, frames: frames, bytesPerSize: bytesPerSize, start: data.count - indexLength + 1)
        var total = 0
        for i in 0 ..< frames {
            let size = index.size(i)
            guard size > 0 else { return nil }
            total += size
        }
        guard total <= data.count - indexLength else { return nil }
        return index
    }

    struct Index {
        let data: UnsafeRawBufferPointer
        let frames: Int
        let bytesPerSize: Int
        let start: Int

        func size(_ frame: Int) -> Int {
            var size = 0
            for byte in 0 ..< bytesPerSize { size |= Int(data[start + frame * bytesPerSize + byte]) << (8 * byte) }
            return size
        }
    }
}
