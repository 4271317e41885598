import Dispatch
import Synchronization

/// Timers for many long waits that are mostly cancelled (session expiry, reconnection grace, join
/// deadlines): one heap and one dispatch timer armed for the earliest deadline, for any number of
/// timers. Cancelling drops the action (and everything it captures) at once.
///
/// A `Task { try await Task.sleep(...) }` per wait does not: cancelling it wakes the task, but the
/// runtime's sleep job stays queued until the original deadline, about 1.5 KB each — a server
/// whose sessions hold hour-long tokens kept every join's timer until the token expired.
///
/// Thread-safe. Actions run on the queue's own serial dispatch queue, one at a time, and must
/// not block (hop to an actor with `Task { await ... }` for real work).
public final class TimerQueue: Sendable {
    /// Identifies a scheduled timer.
    public struct Handle: Hashable, Sendable {
        let id: UInt64
    }

    private struct State {
        var heap = TimerHeap<@Sendable () -> Void>()
        /// The deadline the dispatch timer is armed for (`.max`: disarmed).
        var armedFor: UInt64 = .max
    }

    /// For timers of objects made without a queue of their own.
    public static let shared = TimerQueue(label: "srtc-shared-timers")

    private let state = Mutex(State())
    private let queue: DispatchQueue
    /// Dispatch sources are thread-safe; the protocol is just not marked `Sendable`.
    private nonisolated(unsafe) let timer: DispatchSourceTimer

    /// - Parameter label: names the dispatch queue the actions run on.
    public init(label: String = "srtc-timers") {
        queue = DispatchQueue(label: label)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Runs `action` once at `deadline` (monotonic nanoseconds, `Monotonic.now()`'s clock).
    @discardableResult
    public func schedule(at deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> Handle {
        let (handle, rearm) = state.withLock { s -> (Handle, Bool) in
            let id = s.heap.schedule(at: deadline, action)
            return (Handle(id: id.value), deadline < s.armedFor)
        }
        if rearm { arm() }
        return handle
    }

    /// Runs `action` once after `delay`.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Handle {
        schedule(at: Monotonic.now() &+ Monotonic.nanoseconds(delay), action)
    }

    /// Cancels a timer and releases its action; harmless when it already ran.
    public func cancel(_ handle: Handle) {
        state.withLock { $0.heap.cancel(TimerID(value: handle.id)) }
    }

    /// Timers scheduled and neither run nor cancelled.
    public var pendingCount: Int { state.withLock { $0.heap.count } }

    // MARK: - Internals

    /// Points the dispatch timer at the earliest live deadline (under the lock, so two threads
    /// arming at once cannot leave it at the later of their deadlines).
    private func arm() {
        state.withLock { s in
            let next = s.heap.nextDeadline() ?? .max
            s.armedFor = next
            guard next != .max else {
                timer.schedule(deadline: .distantFuture)
                return
            }
            let now = Monotonic.now()
            timer.schedule(deadline: .now() + .nanoseconds(Int(clamping: next > now ? next - now : 0)), leeway: .milliseconds(5))
        }
    }

    private func fire() {
        let due = state.withLock { s -> [@Sendable () -> Void] in
            s.armedFor = .max
            return s.heap.popDue(now: Monotonic.now())
        }
        for action in due { action() }
        arm()
    }
}
