@testable import SRTCCore
@testable import SRTCDevices
import Testing

/// Seed 002's interruption recovery (`AudioInterruptionRecovery`, carried out on iOS by
/// `AudioRouteSession`): the session is rebuilt only once the call really ended and the app is in
/// the foreground, retried on failure, and "recovered" is reported only after a rebuild that worked.
@Suite struct AudioInterruptionRecoveryTests {
    typealias Machine = AudioInterruptionRecovery

    @Test func aPhoneCallIsWaitedOutThenTheSessionIsRebuiltAndRecoveryReported() {
        var m = Machine()
        #expect(m.handle(.interruptionBegan) == [.reportInterrupted])
        #expect(m.handle(.interruptionBegan) == [], "reported once")
        #expect(m.handle(.callStateChanged(.incoming)) == [.reportCallState(.incoming)])
        #expect(m.handle(.callStateChanged(.connected)) == [.reportCallState(.connected)])
        // The system says the interruption ended while the call is still on: nothing is rebuilt.
        #expect(m.handle(.interruptionEnded) == [])
        // The user was in the phone app: the call ends, the app is still in the background.
        #expect(m.handle(.foregroundChanged(false)) == [])
        #expect(m.handle(.callStateChanged(.idle)) == [.reportCallState(.idle)])
        // Back in the foreground: rebuilt; recovered only once the rebuild worked.
        #expect(m.handle(.foregroundChanged(true)) == [.rebuildSession])
        #expect(m.handle(.foregroundChanged(true)) == [], "one rebuild at a time")
        #expect(m.interrupted)
        #expect(m.handle(.rebuildFinished(succeeded: true)) == [.reportRecovered])
        #expect(!m.interrupted)
    }

    @Test func aFailedRebuildIsRetriedWithGrowingDelaysAndRecoveryWaitsForSuccess() {
        var m = Machine()
        _ = m.handle(.interruptionBegan)
        #expect(m.handle(.interruptionEnded) == [.rebuildSession])
        #expect(m.handle(.rebuildFinished(succeeded: false)) == [.retry(afterSeconds: 0.5)])
        #expect(m.handle(.foregroundChanged(true)) == [], "not before the retry is due")
        #expect(m.handle(.retryDue) == [.rebuildSession])
        #expect(m.handle(.rebuildFinished(succeeded: false)) == [.retry(afterSeconds: 1)])
        #expect(m.handle(.retryDue) == [.rebuildSession])
        #expect(m.handle(.rebuildFinished(succeeded: false)) == [.retry(afterSeconds: 2)])
        for expected in [4.0, 8, 8] {
            #expect(m.handle(.retryDue) == [.rebuildSession])
            #expect(m.handle(.rebuildFinished(succeeded: false)) == [.retry(afterSeconds: expected)])
        }
        #expect(m.handle(.retryDue) == [.rebuildSession])
        #expect(m.handle(.rebuildFinished(succeeded: true)) == [.reportRecovered])
    }

    @Test func aCallThatEndsEndsTheInterruptionEvenWithoutTheSystemsWord() {
        var m = Machine()
        _ = m.handle(.interruptionBegan)
        _ = m.handle(.callStateChanged(.connected))
        // iOS does not always post the interruption's end: the call ending is taken for it.
        #expect(m.handle(.callStateChanged(.idle)) == [.reportCallState(.idle), .rebuildSession])
    }

    @Test func withoutAnInterruptionCallStatesAreOnlyReported() {
        var m = Machine()
        #expect(m.handle(.callStateChanged(.outgoing)) == [.reportCallState(.outgoing)])
        #expect(m.handle(.callStateChanged(.idle)) == [.reportCallState(.idle)])
        #expect(m.handle(.interruptionEnded) == [])
        #expect(m.handle(.rebuildFinished(succeeded: true)) == [])
    }
}
