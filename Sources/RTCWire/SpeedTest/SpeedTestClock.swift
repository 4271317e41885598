/// Microseconds since this clock was made, on the monotonic clock: the timestamps of
/// speed-test datagrams (only differences between two of one sender's stamps mean anything).
public struct SpeedTestClock: Sendable {
    private let epoch: ContinuousClock.Instant

    public init() { epoch = .now }

    /// Microseconds from the epoch to `instant` (0 before it).
    public func micros(_ instant: ContinuousClock.Instant) -> UInt64 {
        let (seconds, attoseconds) = (instant - epoch).components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds) / 1_000_000_000_000
    }

    /// Microseconds from the epoch to now.
    public var now: UInt64 { micros(.now) }
}
