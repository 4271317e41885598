import RTCCrypto
import RTCNet
import Synchronization

/// Time as a room sees it: the wall clock (Unix milliseconds: timestamps, token expiry,
/// deadlines), a monotonic clock (rate limits), and one-shot timers at a wall-clock deadline (a
/// channel's resume grace period and token expiry; a meeting's sign-in deadlines, sub-meeting
/// countdown and the wait for a moved room's members). Injected, so tests drive a room's timers
/// without waiting (`ManualClock` in SRTCTestSupport); the server uses `SystemRoomClock`.
/// `package`: `MeetingServer`'s rooms keep time the same way.
package protocol RoomClock: Sendable {
    /// Milliseconds since the Unix epoch (the protocol's time unit).
    func now() -> Int64
    /// Seconds on a clock that never jumps.
    func monotonicSeconds() -> Double
    /// Calls `action` once, on any thread, when the wall clock reaches `deadline` (Unix ms),
    /// unless the returned timer is cancelled first.
    func schedule(at deadline: Int64, _ action: @escaping @Sendable () -> Void) -> RoomTimer
}

/// A scheduled one-shot action; `cancel` makes sure it does not run (if it has not yet).
package protocol RoomTimer: Sendable {
    func cancel()
}

/// The real clocks, with timers on a `TimerQueue`: a session's timers cost nothing once cancelled
/// (a cancelled `Task.sleep` held about 1.5 KB until its deadline, so every join kept memory
/// until its token expired, hours after the user left).
package struct SystemRoomClock: RoomClock {
    /// The longest single wait of a timer; it checks the wall clock again after each, so a far
    /// deadline (a token's `exp` may be anything up to `Int64.max`) never overflows a duration
    /// and a clock set forward or back moves the deadline with it.
    static let longestWaitMs: Int64 = 24 * 3600 * 1000
    let timers: TimerQueue

    package init(timers: TimerQueue = .shared) { self.timers = timers }

    package func now() -> Int64 { unixMilliseconds() }

    package func monotonicSeconds() -> Double { Double(Monotonic.now()) / 1e9 }

    package func schedule(at deadline: Int64, _ action: @escaping @Sendable () -> Void) -> RoomTimer {
        let timer = QueueTimer(timers: timers)
        timer.arm(deadline: deadline, action)
        return timer
    }

    /// One deadline, re-armed in steps of at most `longestWaitMs`.
    private final class QueueTimer: RoomTimer {
        let timers: TimerQueue
        private let state = Mutex<(handle: TimerQueue.Handle?, cancelled: Bool)>((nil, false))

        init(timers: TimerQueue) { self.timers = timers }

        func arm(deadline: Int64, _ action: @escaping @Sendable () -> Void) {
            let remaining = deadline.subtractingSaturating(unixMilliseconds())
            guard remaining > 0 else {
                if !state.withLock({ $0.cancelled }) { action() }
                return
            }
            let handle = timers.schedule(after: .milliseconds(min(remaining, SystemRoomClock.longestWaitMs))) { [self] in
                arm(deadline: deadline, action)
            }
            let stale = state.withLock { s -> Bool in
                if s.cancelled { return true }
                s.handle = handle
                return false
            }
            if stale { timers.cancel(handle) }
        }

        func cancel() {
            let handle = state.withLock { s -> TimerQueue.Handle? in
                s.cancelled = true
                defer { s.handle = nil }
                return s.handle
            }
            if let handle { timers.cancel(handle) }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
