// Bit-granular reading and writing, most significant bit first, as bit-oriented RTP formats
// define their fields (the AV1 Dependency Descriptor's f(n) and ns(n), av1-rtp-spec §A.8.2).
// Both work on caller-owned buffers: no allocation.

/// Reads fields of `n` bits from raw bytes, high bit first (`package`: RTCMedia reads VP9 frame
/// headers with it).
package struct BitReader {
    private let bytes: UnsafeRawBufferPointer
    /// Bits consumed so far.
    package private(set) var position = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Bits in the buffer.
    package var count: Int { bytes.count * 8 }

    /// f(n): the next `n` bits (0…32) as an unsigned number.
    /// - Throws: `DependencyDescriptorError.truncated` when fewer than `n` bits are left.
    @inline(__always)
    package mutating func read(_ n: Int) throws(DependencyDescriptorError) -> UInt32 {
        guard position + n <= count else { throw .truncated }
        var value: UInt32 = 0
        for _ in 0 ..< n {
            let bit = bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1
            value = value << 1 | UInt32(bit)
            position += 1
        }
        return value
    }

    @inline(__always)
    package mutating func flag() throws(DependencyDescriptorError) -> Bool { try read(1) == 1 }

    /// ns(n): a non-symmetric unsigned number in 0 ..< n (av1-rtp-spec §A.8.2): values below
    /// `m = 2^w − n` take w − 1 bits, the others w, where w is the bit width of n.
    mutating func readNonSymmetric(_ n: UInt32) throws(DependencyDescriptorError) -> UInt32 {
        guard n > 1 else { return 0 }
        let w = UInt32(32 - n.leadingZeroBitCount)
        let m = (UInt32(1) << w) - n
        let v = try read(Int(w - 1))
        if v < m { return v }
        let extra = try read(1)
        return (v << 1) - m + extra
    }
}

/// Writes fields of `n` bits into a caller's buffer, high bit first. The caller sizes the buffer;
/// writes past its end are dropped and `overflowed` says so.
struct BitWriter {
    private let bytes: UnsafeMutableRawBufferPointer
    /// Bits written so far.
    private(set) var position = 0
    private(set) var overflowed = false

    init(_ bytes: UnsafeMutableRawBufferPointer) { self.bytes = bytes }

    /// Writes the low `n` bits of `value`.
    @inline(__always)
    mutating func write(_ value: UInt32, bits n: Int) {
        guard position + n <= bytes.count * 8 else { overflowed = true; return }
        var i = n
        while i > 0 {
            i -= 1
            let bit = UInt8(truncatingIfNeeded: value >> UInt32(i)) & 1
            let mask: UInt8 = 0x80 >> UInt8(position & 7)
            if bit == 1 { bytes[position >> 3] |= mask } else { bytes[position >> 3] &= ~mask }
            position += 1
        }
    }

    @inline(__always)
    mutating func write(_ flag: Bool) { write(flag ? 1 : 0, bits: 1) }

    /// write_ns(n, v) (av1-rtp-spec §A.8.2).
    mutating func writeNonSymmetric(_ v: UInt32, _ n: UInt32) {
        guard n > 1 else { return }
        let w = UInt32(32 - n.leadingZeroBitCount)
        let m = (UInt32(1) << w) - n
        if v < m { write(v, bits: Int(w - 1)) } else { write(v + m, bits: Int(w)) }
    }

    /// Copies bits `range` of `source` (high bit first) to the current position.
    mutating func copyBits(of source: UnsafeRawBufferPointer, _ range: Range<Int>) {
        var bit = range.lowerBound
        while bit < range.upperBound {
            let take = min(32, range.upperBound - bit)
            var reader = BitReader(source)
            reader.skip(to: bit)
            guard let value = try? reader.read(take) else { overflowed = true; return }
            write(value, bits: take)
            bit += take
        }
    }

    /// Zero bits up to the next byte boundary (av1-rtp-spec §A.8.2 zero_padding).
    mutating func padToByte() {
        let rest = (8 - position & 7) & 7
        if rest > 0 { write(0, bits: rest) }
    }

    /// Bytes holding what was written.
    var byteCount: Int { (position + 7) / 8 }
}

extension BitReader {
    /// Moves to bit `position` (at most `count`).
    mutating func skip(to bit: Int) { position = min(bit, count) }
}
