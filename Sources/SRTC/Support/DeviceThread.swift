import Foundation
import Synchronization

/// A thread of its own for a device loop (capture, playback, a hot-plug watcher): blocking reads
/// and writes stay off the cooperative pool. The body runs once and loops while `isRunning`,
/// waking at least every few hundred milliseconds to check it; `stop()` asks it to end and waits
/// until it has (unless called from the loop itself).
package final class DeviceThread: Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    private let threadID = Mutex<ObjectIdentifier?>(nil)

    /// Starts `body` on a new thread named `name`.
    package init(name: String, _ body: @escaping @Sendable (DeviceThread) -> Void) {
        let thread = Thread { [self] in
            threadID.withLock { $0 = ObjectIdentifier(Thread.current) }
            body(self)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// False once `stop()` was called.
    package var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Ends the loop and waits for it (returns at once when called from the loop itself).
    package func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if threadID.withLock({ $0 }) == ObjectIdentifier(Thread.current) { return }
        finished.wait()
    }

    /// Runs `body` (blocking device calls: opening a sound stream, a camera, a display) on a
    /// short-lived thread and returns its result, so async callers never block the cooperative pool.
    package static func perform<T: Sendable>(_ body: @escaping @Sendable () throws(SRTCError) -> T) async throws(SRTCError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, SRTCError>, Never>) in
            let thread = Thread {
                do throws(SRTCError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "srtc.device.open"
            thread.start()
        }
        return try result.get()
    }
}
