import Foundation
import Synchronization
import Testing
import TestWait
@testable import RTCNet

/// An object whose lifetime a test watches through a weak reference.
private final class Payload: Sendable {}

@Suite struct TimerQueueTests {
    @Test func timersRunOnceInDeadlineOrder() async throws {
        let queue = TimerQueue()
        let fired = Mutex<[Int]>([])
        let now = Monotonic.now()
        for (i, delayMs) in [30, 10, 20, 0].enumerated() {
            queue.schedule(at: now + UInt64(delayMs) * 1_000_000) { fired.withLock { $0.append(i) } }
        }
        try await eventually("four timers fired") { fired.withLock { $0.count } == 4 }
        #expect(fired.withLock { $0 } == [3, 1, 2, 0])
        #expect(queue.pendingCount == 0)
    }

    @Test func anEarlierTimerScheduledLaterStillFiresFirst() async throws {
        let queue = TimerQueue()
        let fired = Mutex<[String]>([])
        queue.schedule(after: .seconds(30)) { fired.withLock { $0.append("late") } }
        queue.schedule(after: .milliseconds(5)) { fired.withLock { $0.append("soon") } }
        try await eventually("the uncancelled timer fired") { fired.withLock { $0 } == ["soon"] }
        #expect(queue.pendingCount == 1)
    }

    /// The point of the queue: a cancelled wait keeps nothing alive (a cancelled `Task.sleep` held
    /// about 1.5 KB per session until its deadline, hours away).
    @Test func cancellingReleasesTheActionAndWhatItCapturesAtOnce() {
        let queue = TimerQueue()
        weak var watched: Payload?
        var handles: [TimerQueue.Handle] = []
        do {
            let payload = Payload()
            watched = payload
            for _ in 0..<1000 {
                handles.append(queue.schedule(after: .seconds(3600)) { _ = payload })
            }
        }
        #expect(watched != nil)
        #expect(queue.pendingCount == 1000)
        for handle in handles { queue.cancel(handle) }
        #expect(watched == nil)
        #expect(queue.pendingCount == 0)
        queue.cancel(handles[0])  // twice: harmless
    }

    @Test func cancelledEntriesDoNotPileUpInTheHeap() {
        var heap = TimerHeap<Int>()
        for i in 0..<10_000 {
            let id = heap.schedule(at: UInt64(1_000_000 + i), i)
            if i % 100 != 0 { heap.cancel(id) }
        }
        #expect(heap.count == 100)
        #expect(heap.storedEntries <= 2 * 100 + 64)
        // The live ones still come out in order.
        #expect(heap.popDue(now: .max) == (0..<100).map { $0 * 100 })
    }
}
