import Foundation

/// Runs CPU-heavy or blocking test work on a thread of its own and returns its result, so the
/// cooperative pool every async test shares (two threads on a two-core machine) is never held for
/// seconds: a starved pool makes other tests' network timeouts fire. Record expectations on the
/// result, back in the test's task.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
        Thread.detachNewThread { done.resume(returning: body()) }
    }
}

/// `onThread` for throwing work: a child process to wait for, a daemon to start, a blocking call.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await onThread { Result { try body() } }.get()
}
