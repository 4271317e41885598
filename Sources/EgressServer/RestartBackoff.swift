/// How long a composite waits before its dead worker is started again: 0.5 s, then twice as long
/// after each worker that died again soon (1 s, 2 s … at most 30 s), so a worker that crashes at
/// once does not spin. A worker that ran `stableSeconds` before dying starts the count over: a
/// composite that lost its worker once a day would otherwise wait 30 s from its seventh loss on.
struct RestartBackoff: Sendable, Equatable {
    /// A worker that ran this long was not crashing at start.
    static let stableSeconds = 60.0
    static let firstDelay = 0.5
    static let maxDelay = 30.0

    /// Quick deaths in a row so far.
    private(set) var failures = 0
    /// When the current worker reported that it runs.
    private var startedAt: Double?

    /// The worker reported `started` at `now` (seconds, monotonic).
    mutating func workerStarted(atSeconds now: Double) {
        startedAt = now
    }

    /// The worker died at `now`; returns the seconds to wait before starting the next one.
    mutating func workerExited(atSeconds now: Double) -> Double {
        if let startedAt, now - startedAt >= Self.stableSeconds { failures = 0 }
        startedAt = nil
        failures += 1
        // 2^(failures-1), capped well before the exponent could overflow.
        var delay = Self.firstDelay
        for _ in 1..<min(failures, 8) { delay *= 2 }
        return min(Self.maxDelay, delay)
    }
}
