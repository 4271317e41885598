import Dispatch
import Testing
@testable import SRTCCore

/// The channel's one executor (`QueueOwned`): every access runs on the owning queue, in order
/// with the work queued there, and an access from the queue itself runs at once.
@Suite struct QueueOwnedTests {
    @Test func anAccessFromAnotherThreadRunsOnTheQueueAfterTheWorkQueuedThere() async {
        let queue = DispatchQueue(label: "test.owner")
        let owned = QueueOwned([String](), queue: queue)
        let gate = DispatchSemaphore(value: 0)
        queue.async {
            gate.wait()  // the queue is busy until the test lets it go
            owned.sync { $0.append("queued first") }
        }
        let reader = Task.detached {
            owned.sync { value in (owned.isOwnerRunning, value) }
        }
        // However the reader and the queue interleave, the append queued first runs first, and
        // the reader runs on the queue.
        gate.signal()
        let (onQueue, seen) = await reader.value
        #expect(onQueue)
        #expect(seen == ["queued first"])
    }

    @Test func anAccessFromTheQueueItselfRunsAtOnce() async {
        let queue = DispatchQueue(label: "test.owner")
        let owned = QueueOwned(0, queue: queue)
        #expect(!owned.isOwnerRunning)
        let result: Int = await withCheckedContinuation { continuation in
            queue.async {
                owned.sync { $0 += 1 }
                // A second access from the queue, after the first returned: no deadlock.
                continuation.resume(returning: owned.sync { $0 + 1 })
            }
        }
        #expect(result == 2)
        #expect(owned.sync { $0 } == 1)
    }

    @Test func typedErrorsPassThrough() {
        let owned = QueueOwned(0, queue: DispatchQueue(label: "test.owner"))
        let thrown: SRTCError? = {
            do throws(SRTCError) {
                try owned.sync { (_) throws(SRTCError) in throw .notJoined }
                return nil
            } catch {
                return error
            }
        }()
        #expect(thrown == .notJoined)
    }
}
