import RTCCrypto
import Synchronization

/// Time as a channel room sees it: the wall clock (Unix milliseconds: timestamps, token expiry),
/// a monotonic clock (rate limits), and one-shot timers at a wall-clock deadline (the resume grace
/// period, token expiry). Injected, so tests drive a room's timers without waiting (`ManualClock`
/// in the server tests); the server uses `SystemRoomClock`.
protocol RoomClock: Sendable {
    /// Milliseconds since the Unix epoch (the protocol's time unit).
    func now() -> Int64
    /// Seconds on a clock that never jumps.
    func monotonicSeconds() -> Double
    /// Calls `action` once, on any thread, when the wall clock reaches `deadline` (Unix ms),
    /// unless the returned timer is cancelled first.
    func schedule(at deadline: Int64, _ action: @escaping @Sendable () -> Void) -> RoomTimer
}

/// A scheduled one-shot action; `cancel` makes sure it does not run (if it has not yet).
protocol RoomTimer: Sendable {
    func cancel()
}

/// The real clocks, with timers as sleeping tasks.
struct SystemRoomClock: RoomClock {
    /// The longest single sleep of a timer; it checks the wall clock again after each, so a
    /// far deadline (a token's `exp` may be anything up to `Int64.max`) never overflows a duration.
    static let longestWaitMs: Int64 = 24 * 3600 * 1000

    func now() -> Int64 { unixMilliseconds() }

    func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    func schedule(at deadline: Int64, _ action: @escaping @Sendable () -> Void) -> RoomTimer {
        TaskTimer(task: Task {
            while case let remaining = deadline.subtractingSaturating(unixMilliseconds()), remaining > 0 {
                try? await Task.sleep(for: .milliseconds(min(remaining, Self.longestWaitMs)))
                guard !Task.isCancelled else { return }
            }
            guard !Task.isCancelled else { return }
            action()
        })
    }

    private struct TaskTimer: RoomTimer {
        let task: Task<Void, Never>
        func cancel() { task.cancel() }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
