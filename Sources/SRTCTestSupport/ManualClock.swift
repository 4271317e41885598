import SRTCServer
import Synchronization

/// A `RoomClock` that moves only when the test says: `advance` runs every timer that falls due,
/// in deadline order, on the caller's thread (so the events they post are queued when it returns).
/// Channel rooms' tests and meeting rooms' tests drive their timers with it.
package final class ManualClock: RoomClock {
    private struct Pending {
        let id: Int
        let deadline: Int64
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Int64
        var nextId = 0
        var pending: [Pending] = []
    }

    private let state: Mutex<State>

    /// - Parameter now: the starting wall-clock time, Unix milliseconds.
    package init(now: Int64 = 1_800_000_000_000) {
        state = Mutex(State(now: now))
    }

    package func now() -> Int64 { state.withLock { $0.now } }

    /// The same clock, in seconds (it never jumps backwards here).
    package func monotonicSeconds() -> Double { Double(now()) / 1000 }

    package func schedule(at deadline: Int64, _ action: @escaping @Sendable () -> Void) -> RoomTimer {
        let id = state.withLock { s in
            s.nextId += 1
            s.pending.append(Pending(id: s.nextId, deadline: deadline, action: action))
            return s.nextId
        }
        return Timer(clock: self, id: id)
    }

    /// Timers not yet run nor cancelled.
    package var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Moves the clock `milliseconds` ahead and runs the timers that fell due.
    package func advance(milliseconds: Int64) {
        let due = state.withLock { s -> [Pending] in
            s.now += milliseconds
            let due = s.pending.filter { $0.deadline <= s.now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            s.pending.removeAll { $0.deadline <= s.now }
            return due
        }
        for timer in due { timer.action() }
    }

    fileprivate func cancel(_ id: Int) {
        state.withLock { $0.pending.removeAll { $0.id == id } }
    }

    private struct Timer: RoomTimer {
        let clock: ManualClock
        let id: Int
        func cancel() { clock.cancel(id) }
    }
}
