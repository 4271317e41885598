// Wrap-aware arithmetic on 16-bit RTP sequence numbers (RFC 3550 §A.1): a number is "after" another when
// it is less than half the number space ahead of it.

enum SequenceNumber {
    /// Signed distance from `a` to `b`: positive when `b` comes after `a`, in -32 768…32 767.
    @inline(__always)
    static func distance(from a: UInt16, to b: UInt16) -> Int { Int(Int16(bitPattern: b &- a)) }

    /// Whether `b` comes after `a`.
    @inline(__always)
    static func isNewer(_ b: UInt16, than a: UInt16) -> Bool { distance(from: a, to: b) > 0 }
}
