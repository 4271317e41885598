import Testing
@testable import SRTCCore

@Suite struct ReceiveTimeoutMonitorTests {
    @Test func firstFrameAfterSubscribingReportsARecovery() {
        var m = ReceiveTimeoutMonitor(timeout: 2)
        m.start(now: 0)
        #expect(m.tick(now: 1) == nil)
        #expect(m.frameArrived(now: 1.5) == false)
        #expect(m.frameArrived(now: 1.6) == nil) // steady flow: no report
        #expect(!m.isTimedOut)
    }

    @Test func noFirstFrameWithinTheTimeoutReportsATimeoutThenARecovery() {
        var m = ReceiveTimeoutMonitor(timeout: 2)
        m.start(now: 10)
        #expect(m.tick(now: 11.9) == nil)
        #expect(m.tick(now: 12.0) == true)
        #expect(m.isTimedOut)
        #expect(m.tick(now: 20) == nil) // reported once
        #expect(m.frameArrived(now: 21) == false)
        #expect(!m.isTimedOut)
    }

    @Test func stallAfterFramesTimesOutAndResumeRecovers() {
        var m = ReceiveTimeoutMonitor(timeout: 1)
        m.start(now: 0)
        _ = m.frameArrived(now: 0.1)
        _ = m.frameArrived(now: 0.2)
        #expect(m.tick(now: 1.1) == nil)
        #expect(m.tick(now: 1.2) == true)
        #expect(m.frameArrived(now: 3) == false)
        #expect(m.tick(now: 3.5) == nil)
        #expect(m.tick(now: 4.0) == true)
    }

    @Test func stoppedMonitorJudgesNothing() {
        var m = ReceiveTimeoutMonitor(timeout: 1)
        #expect(m.tick(now: 100) == nil)
        #expect(m.frameArrived(now: 100) == nil)
        m.start(now: 0)
        m.stop()
        #expect(m.tick(now: 50) == nil)
        #expect(!m.isTimedOut)
    }

    @Test func restartWaitsForAFirstFrameAgain() {
        var m = ReceiveTimeoutMonitor(timeout: 1)
        m.start(now: 0)
        #expect(m.tick(now: 1) == true)
        m.stop()  // muted
        m.start(now: 5) // unmuted
        #expect(!m.isTimedOut)
        #expect(m.frameArrived(now: 5.2) == false)
    }
}
