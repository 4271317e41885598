import Synchronization

extension TimerQueue {
    /// Suspends the calling task for `duration` on this queue's heap: the one way server and SDK
    /// code waits (docs/architecture.md, "Timers"). Unlike `Task.sleep`, a cancelled wait frees
    /// its timer at once (`Task.sleep` keeps its runtime job, about 1.5 KB, until the deadline).
    /// - Throws: `CancellationError` when the task is cancelled before or during the wait, as
    ///   `Task.sleep` does.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let wait = SleepWait()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                guard wait.install(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let handle = schedule(after: duration) { wait.finish(with: nil) }
                if !wait.hold(handle) { cancel(handle) }
            }
        } onCancel: {
            if let handle = wait.finish(with: CancellationError()) { cancel(handle) }
        }
    }
}

/// One `sleep`'s state, shared by the waiting task, the timer and the cancellation handler (which
/// may run before the continuation exists): whoever finishes first resumes the task, once.
private final class SleepWait: Sendable {
    private enum Phase {
        case starting
        case waiting(CheckedContinuation<Void, Error>, TimerQueue.Handle?)
        case cancelledEarly
        case finished
    }

    private let phase = Mutex<Phase>(.starting)

    /// Keeps the continuation; false when the task was cancelled before it got here.
    func install(_ continuation: CheckedContinuation<Void, Error>) -> Bool {
        phase.withLock { p in
            guard case .starting = p else { return false }
            p = .waiting(continuation, nil)
            return true
        }
    }

    /// Keeps the timer's handle for cancellation; false when the wait already ended.
    func hold(_ handle: TimerQueue.Handle) -> Bool {
        phase.withLock { p in
            guard case .waiting(let continuation, nil) = p else { return false }
            p = .waiting(continuation, handle)
            return true
        }
    }

    /// Resumes the task (with `error`, or normally when nil) if nothing did yet; returns the
    /// timer's handle for the caller to cancel.
    @discardableResult
    func finish(with error: Error?) -> TimerQueue.Handle? {
        let taken = phase.withLock { p -> (CheckedContinuation<Void, Error>, TimerQueue.Handle?)? in
            switch p {
            case .starting:
                p = .cancelledEarly
                return nil
            case .waiting(let continuation, let handle):
                p = .finished
                return (continuation, handle)
            case .cancelledEarly, .finished:
                return nil
            }
        }
        guard let (continuation, handle) = taken else { return nil }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        return handle
    }
}
