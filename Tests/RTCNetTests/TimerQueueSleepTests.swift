import Testing
import TestWait
@testable import RTCNet

/// `TimerQueue.sleep`: the wait server and SDK code use instead of `Task.sleep`.
@Suite struct TimerQueueSleepTests {
    @Test func aSleepLastsAtLeastItsDurationAndLeavesNoTimer() async throws {
        let queue = TimerQueue()
        let start = Monotonic.now()
        try await queue.sleep(for: .milliseconds(40))
        let elapsedMs = Double(Monotonic.now() - start) / 1e6
        #expect(elapsedMs >= 40, "woke after \(elapsedMs) ms")
        #expect(queue.pendingCount == 0)
    }

    /// Cancelling the task ends the wait with `CancellationError` long before its deadline and
    /// takes its timer off the heap at once (what `Task.sleep` does not do).
    @Test func cancellingTheTaskEndsTheWaitAndFreesItsTimer() async throws {
        let queue = TimerQueue()
        let sleeper = Task { () -> Error? in
            do { try await queue.sleep(for: .seconds(3600)); return nil } catch { return error }
        }
        try await eventually("the sleep's timer is scheduled") { queue.pendingCount == 1 }
        let start = Monotonic.now()
        sleeper.cancel()
        let error = await sleeper.value
        #expect(error is CancellationError, "ended with \(String(describing: error))")
        #expect(Double(Monotonic.now() - start) / 1e9 < 60, "the cancelled wait ran on toward its hour")
        #expect(queue.pendingCount == 0)
    }

    @Test func aTaskCancelledBeforeItSleepsDoesNotWait() async throws {
        let queue = TimerQueue()
        let sleeper = Task { () -> Error? in
            while !Task.isCancelled { await Task.yield() }
            do { try await queue.sleep(for: .seconds(3600)); return nil } catch { return error }
        }
        sleeper.cancel()
        #expect(await sleeper.value is CancellationError)
        #expect(queue.pendingCount == 0)
    }

    /// Many sleepers cancelled at once, some while still starting: each ends exactly once and
    /// no timer is left (a continuation resumed twice would trap; one never resumed would hang).
    @Test func manySleepersCancelledAtOnceEachEndOnce() async throws {
        let queue = TimerQueue()
        let sleepers = (0..<200).map { i in
            Task { () -> Bool in
                do { try await queue.sleep(for: i % 2 == 0 ? .seconds(3600) : .milliseconds(1)); return true } catch { return false }
            }
        }
        for sleeper in sleepers { sleeper.cancel() }
        var ended = 0
        for sleeper in sleepers { _ = await sleeper.value; ended += 1 }
        #expect(ended == 200)
        try await eventually("no timer left") { queue.pendingCount == 0 }
    }
}
