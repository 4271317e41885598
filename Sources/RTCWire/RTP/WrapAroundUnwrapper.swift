/// Extends a wrapping 16- or 32-bit counter (sequence number, timestamp) to a 64-bit value that
/// keeps counting across wraps, like RFC 3550 §A.1's `cycles` but also tolerant of reordering:
/// each input is placed at the shortest distance from the previous one.
public struct WrapAroundUnwrapper<Counter: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    private var last: Int64?

    public init() {
        precondition(Counter.bitWidth <= 32, "unwrapping is for 16- and 32-bit counters")
    }

    /// The last unwrapped value, if any input was seen.
    public var lastValue: Int64? { last }

    /// The unwrapped value of `value` (the first input maps to itself).
    public mutating func unwrap(_ value: Counter) -> Int64 {
        guard let previous = last else {
            last = Int64(value)
            return Int64(value)
        }
        let span = Int64(1) << Counter.bitWidth
        let forward = Int64(value &- Counter(truncatingIfNeeded: previous))
        let delta = forward >= span / 2 ? forward - span : forward
        let result = previous + delta
        last = result
        return result
    }

    /// The unwrapped value of `value` without recording it.
    public func peek(_ value: Counter) -> Int64 {
        var copy = self
        return copy.unwrap(value)
    }
}

/// Unwraps 16-bit RTP sequence numbers.
public typealias SequenceNumberUnwrapper = WrapAroundUnwrapper<UInt16>
/// Unwraps 32-bit RTP timestamps.
public typealias RTPTimestampUnwrapper = WrapAroundUnwrapper<UInt32>
