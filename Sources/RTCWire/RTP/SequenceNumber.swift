/// Wrap-aware arithmetic on 16-bit RTP sequence numbers (RFC 3550 §A.1): a number is "newer"
/// when it lies less than half the space (2^15) ahead, modulo 2^16. The one copy for the SFU, the
/// SDK and the media buffers.
///
/// Exactly half the space apart, neither way is shorter; the larger raw value is taken as the
/// newer one, so `isNewer` is antisymmetric everywhere and `distance` always agrees with it
/// (`distance(from: a, to: b) == -distance(from: b, to: a)`, positive when `b` is newer).
public enum SequenceNumber {
    /// True when `a` comes after `b`.
    @inlinable
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        distance(from: b, to: a) > 0
    }

    /// Signed steps from `a` to `b` along the shorter way round: -32767…32767, or ±32768 exactly
    /// half the space apart (positive when `b` is the larger raw value).
    @inlinable
    public static func distance(from a: UInt16, to b: UInt16) -> Int {
        let forward = b &- a
        if forward == 0x8000 { return b > a ? 0x8000 : -0x8000 }
        return Int(Int16(bitPattern: forward))
    }

    /// `a` advanced by `steps`, wrapping.
    @inlinable
    public static func advanced(_ a: UInt16, by steps: Int) -> UInt16 {
        a &+ UInt16(truncatingIfNeeded: steps)
    }

    /// The newer of two sequence numbers.
    @inlinable
    public static func newest(_ a: UInt16, _ b: UInt16) -> UInt16 {
        isNewer(a, than: b) ? a : b
    }

    /// Sorts sequence numbers oldest first, wrap-aware relative to the first element
    /// (valid when they span less than half the space, as a NACK list does).
    public static func sorted(_ values: [UInt16]) -> [UInt16] {
        guard let anchor = values.first else { return [] }
        return values.sorted { distance(from: anchor, to: $0) < distance(from: anchor, to: $1) }
    }
}

/// Wrap-aware arithmetic on 32-bit RTP timestamps (RFC 3550 §5.1).
public enum RTPTimestamp {
    /// True when `a` comes after `b` (less than 2^31 ahead).
    @inlinable
    public static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        let forward = a &- b
        if forward == 0x8000_0000 { return a > b }
        return forward != 0 && forward < 0x8000_0000
    }

    /// Signed ticks from `a` to `b` along the shorter way round.
    @inlinable
    public static func distance(from a: UInt32, to b: UInt32) -> Int64 {
        Int64(Int32(bitPattern: b &- a))
    }

    /// Media clock ticks in `milliseconds` at `clockRate` Hz (48 000 for Opus, 90 000 for video).
    @inlinable
    public static func ticks(milliseconds: Int64, clockRate: UInt32) -> Int64 {
        milliseconds * Int64(clockRate) / 1000
    }

    /// Seconds that `ticks` media clock ticks last at `clockRate` Hz.
    @inlinable
    public static func seconds(ticks: Int64, clockRate: UInt32) -> Double {
        Double(ticks) / Double(clockRate)
    }
}
