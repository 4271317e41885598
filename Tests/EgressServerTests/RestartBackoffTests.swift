@testable import EgressServer
import Testing

struct RestartBackoffTests {
    @Test func quickDeathsDoubleTheDelayUpTo30Seconds() {
        var backoff = RestartBackoff()
        var delays: [Double] = []
        for n in 0..<9 {
            backoff.workerStarted(atSeconds: Double(n) * 100)
            delays.append(backoff.workerExited(atSeconds: Double(n) * 100 + 2))
        }
        #expect(delays == [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
        // A worker that never reported `started` counts as a quick death too.
        #expect(backoff.workerExited(atSeconds: 10_000) == 30)
    }

    @Test func aWorkerThatRanAMinuteStartsTheCountOver() {
        var backoff = RestartBackoff()
        for n in 0..<6 { backoff.workerStarted(atSeconds: Double(n)); _ = backoff.workerExited(atSeconds: Double(n) + 0.1) }
        #expect(backoff.failures == 6)
        backoff.workerStarted(atSeconds: 1_000)
        #expect(backoff.workerExited(atSeconds: 1_000 + RestartBackoff.stableSeconds) == 0.5)
        // Just short of a minute is still a quick death.
        backoff.workerStarted(atSeconds: 2_000)
        #expect(backoff.workerExited(atSeconds: 2_000 + RestartBackoff.stableSeconds - 0.5) == 1)
    }
}
