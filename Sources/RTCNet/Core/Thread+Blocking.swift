import Foundation

extension Thread {
    /// Runs blocking or long CPU-bound work (a file encoded at start, a process waited for) on a
    /// thread of its own and resumes the caller with its result. The cooperative pool has about
    /// one thread per core: work that holds one for seconds stalls every task in the process.
    public static func blockingRun<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }
}
