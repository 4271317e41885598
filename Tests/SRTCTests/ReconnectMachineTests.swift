import Testing
@testable import SRTCCore

@Suite struct ReconnectMachineTests {
    func joined(grace: Int = 20) -> ReconnectMachine {
        var m = ReconnectMachine(policy: .init(delays: [0, 0.5, 1, 2, 4], margin: 0.5))
        m.joined(graceSeconds: grace)
        return m
    }

    @Test func lostConnectionNotifiesOnceAndAttemptsAtOnce() {
        var m = joined()
        #expect(m.connectionLost(now: 100) == [.notifyReconnecting, .attempt(after: 0)])
        #expect(m.phase == .reconnecting(attempt: 0, lostAt: 100))
        // A second close report while reconnecting changes nothing.
        #expect(m.connectionLost(now: 100.1) == [])
    }

    @Test func failedAttemptsBackOffThenRepeatTheLastDelay() {
        var m = joined()
        _ = m.connectionLost(now: 0)
        #expect(m.attemptFailed(now: 0.1) == [.attempt(after: 0.5)])
        #expect(m.attemptFailed(now: 0.7) == [.attempt(after: 1)])
        #expect(m.attemptFailed(now: 1.8) == [.attempt(after: 2)])
        #expect(m.attemptFailed(now: 3.9) == [.attempt(after: 4)])
        #expect(m.attemptFailed(now: 8.0) == [.attempt(after: 4)])
        #expect(m.currentAttempt == 5)
        #expect(m.wantsAttempt(5))
        #expect(!m.wantsAttempt(4))
    }

    @Test func resumedSessionReportsReconnected() {
        var m = joined()
        _ = m.connectionLost(now: 0)
        _ = m.attemptFailed(now: 0.1)
        #expect(m.attemptSucceeded(resumed: true) == [.notifyReconnected])
        #expect(m.phase == .connected)
        // The next loss starts over from the first delay.
        #expect(m.connectionLost(now: 50) == [.notifyReconnecting, .attempt(after: 0)])
    }

    @Test func givesUpWhenTheNextAttemptWouldStartPastTheGracePeriod() {
        var m = joined(grace: 5)
        _ = m.connectionLost(now: 10)
        #expect(m.attemptFailed(now: 10.1) == [.attempt(after: 0.5)]) // 10.6 < 14.5
        #expect(m.attemptFailed(now: 10.7) == [.attempt(after: 1)])   // 11.7 < 14.5
        #expect(m.attemptFailed(now: 11.8) == [.attempt(after: 2)])   // 13.8 < 14.5
        #expect(m.attemptFailed(now: 13.9) == [.disconnect(.timeout)]) // 17.9 ≥ 14.5
        #expect(m.phase == .closed)
        #expect(m.attemptFailed(now: 20) == [])
    }

    /// While the server answers "retry" (the channel's dead node is still registered, the node
    /// asked is draining) the client asks again every `retryDelay`, without climbing the backoff;
    /// the first failure of another kind continues the backoff where it stood.
    @Test func retryAnswersAreAskedAgainSoonWithoutClimbingTheBackoff() {
        var m = joined()
        _ = m.connectionLost(now: 0)
        #expect(m.attemptFailed(now: 0.1, retrySoon: true) == [.attempt(after: 0.25)])
        for i in 1...12 { #expect(m.attemptFailed(now: 0.1 + Double(i) * 0.3, retrySoon: true) == [.attempt(after: 0.25)]) }
        #expect(m.currentAttempt == 13)
        #expect(m.attemptFailed(now: 4.2) == [.attempt(after: 0.5)])
        #expect(m.attemptFailed(now: 4.8) == [.attempt(after: 1)])
        #expect(m.attemptFailed(now: 5.9, retrySoon: true) == [.attempt(after: 0.25)])
        #expect(m.attemptFailed(now: 6.2) == [.attempt(after: 2)])
        // Still bounded by the grace period.
        var short = joined(grace: 2)
        _ = short.connectionLost(now: 0)
        #expect(short.attemptFailed(now: 1.2, retrySoon: true) == [.attempt(after: 0.25)])   // 1.45 < 1.5
        #expect(short.attemptFailed(now: 1.3, retrySoon: true) == [.disconnect(.timeout)])   // 1.55 ≥ 1.5
    }

    @Test func aNewSessionInsteadOfAResumeEndsTheChannel() {
        var m = joined()
        _ = m.connectionLost(now: 0)
        #expect(m.attemptSucceeded(resumed: false) == [.disconnect(.timeout)])
        #expect(m.phase == .closed)
    }

    @Test func aRefusedTokenEndsAtOnce() {
        var m = joined()
        _ = m.connectionLost(now: 0)
        #expect(m.attemptFailed(now: 0.1, fatal: .tokenExpired) == [.disconnect(.tokenExpired)])
    }

    @Test func serverEndedSessionNeverReconnects() {
        var m = joined()
        #expect(m.serverEnded(.kicked) == [.disconnect(.kicked)])
        #expect(m.connectionLost(now: 1) == [])
        var idle = ReconnectMachine()
        #expect(idle.serverEnded(.kicked) == [])
    }

    @Test func leavingStopsReconnection() {
        var m = joined()
        _ = m.connectionLost(now: 0)
        m.left()
        #expect(!m.wantsAttempt(0))
        #expect(m.attemptFailed(now: 1) == [])
        #expect(m.attemptSucceeded(resumed: true) == [])
    }

    @Test func fatalErrorsAreThoseNoRetryFixes() {
        #expect(ChannelMachine<Int>.fatalReason(of: .server(code: 40107, message: "")) == .tokenExpired)
        #expect(ChannelMachine<Int>.fatalReason(of: .server(code: 40106, message: "")) == .error)
        #expect(ChannelMachine<Int>.fatalReason(of: .server(code: 42902, message: "")) == nil) // rate limited: retry
        #expect(ChannelMachine<Int>.fatalReason(of: .connectionFailed("refused")) == nil)
        #expect(ChannelMachine<Int>.fatalReason(of: .timeout("join")) == nil)
    }
}
