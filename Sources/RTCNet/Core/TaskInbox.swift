import Synchronization

/// Closures other threads hand to one thread (`EventLoop`, `UDPReceiveLoop`, `SharedUDPThread`):
/// `post` from any thread, `run` on the owning thread. The queue and the list being run trade
/// places under the lock, so running them costs neither an allocation nor a copy (copying the
/// queue out and clearing it made a fresh buffer every time), and a task posted while they run
/// waits for the next `run`.
// @unchecked Sendable: `running` is touched only by `run`, which only the owning thread calls; other threads reach `queue` (Mutex) alone.
final class TaskInbox: @unchecked Sendable {
    private let queue = Mutex<(tasks: [@Sendable () -> Void], closed: Bool)>(([], false))
    private var running: [@Sendable () -> Void] = []

    init() {}

    /// Queues `task` unless the inbox is closed.
    /// - Returns: nil when closed (the task will not run), else whether it is the only task
    ///   waiting (the owner needs a wake-up; one already waiting means it has one coming).
    @discardableResult
    func post(_ task: @escaping @Sendable () -> Void) -> Bool? {
        queue.withLock { queue -> Bool? in
            guard !queue.closed else { return nil }
            queue.tasks.append(task)
            return queue.tasks.count == 1
        }
    }

    /// Tasks waiting.
    var count: Int { queue.withLock { $0.tasks.count } }
    var isEmpty: Bool { queue.withLock { $0.tasks.isEmpty } }

    /// Runs the tasks posted so far, in order (owning thread). Returns whether it ran any.
    @discardableResult
    func run() -> Bool {
        queue.withLock { swap(&$0.tasks, &running) }
        guard !running.isEmpty else { return false }
        for task in running { task() }
        running.removeAll(keepingCapacity: true)
        return true
    }

    /// Takes no more tasks; those already posted still run at the next `run`.
    func close() {
        queue.withLock { $0.closed = true }
    }
}
