import Synchronization

/// Closures other threads hand to one thread (`EventLoop`, `UDPReceiveLoop`, `SharedUDPThread`):
/// `post` from any thread, `run` on the owning thread. The queue and the list being run trade
/// places under the lock, so running them costs neither an allocation nor a copy (copying the
/// queue out and clearing it made a fresh buffer every time), and a task posted while they run
/// waits for the next `run`.
final class TaskInbox: Sendable {
    private struct Lists {
        var queued: [@Sendable () -> Void] = []
        /// The list `run` works through; empty, with its capacity kept, between runs.
        var running: [@Sendable () -> Void] = []
        var closed = false
    }

    private let lists = Mutex(Lists())

    init() {}

    /// Queues `task` unless the inbox is closed.
    /// - Returns: nil when closed (the task will not run), else whether it is the only task
    ///   waiting (the owner needs a wake-up; one already waiting means it has one coming).
    @discardableResult
    func post(_ task: @escaping @Sendable () -> Void) -> Bool? {
        lists.withLock { lists -> Bool? in
            guard !lists.closed else { return nil }
            lists.queued.append(task)
            return lists.queued.count == 1
        }
    }

    /// Tasks waiting.
    var count: Int { lists.withLock { $0.queued.count } }
    var isEmpty: Bool { lists.withLock { $0.queued.isEmpty } }

    /// Runs the tasks posted so far, in order (owning thread only). Returns whether it ran any.
    @discardableResult
    func run() -> Bool {
        var batch = lists.withLock { lists in
            swap(&lists.queued, &lists.running)
            return lists.running
        }
        guard !batch.isEmpty else { return false }
        for task in batch { task() }
        // Let go of the batch first: the list is then unshared and empties in place.
        batch = []
        lists.withLock { $0.running.removeAll(keepingCapacity: true) }
        return true
    }

    /// Takes no more tasks; those already posted still run at the next `run`.
    func close() {
        lists.withLock { $0.closed = true }
    }
}
