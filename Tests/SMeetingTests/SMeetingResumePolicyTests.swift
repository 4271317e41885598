@testable import SMeeting
import SRTC
import Testing

/// The meeting WebSocket resumes with SRTC's `ReconnectMachine` (one reconnection mechanism for
/// both SDKs), under its own policy: at once, then every 300 ms until the grace period ends.
struct SMeetingResumePolicyTests {
    @Test func attemptsGoOnEvery300msUntilTheGracePeriodEnds() {
        var machine = ReconnectMachine(policy: SMeetingEngine.resumePolicy)
        machine.joined(graceSeconds: 3)
        var now = 100.0
        var delays: [Double] = []
        var actions = machine.connectionLost(now: now)
        #expect(actions.first == .notifyReconnecting)
        while case .attempt(let after)? = actions.last {
            delays.append(after)
            now += after
            actions = machine.attemptFailed(now: now)
        }
        #expect(delays.first == 0 && delays.dropFirst().allSatisfy { $0 == 0.3 })
        #expect(delays.count >= 10 && now < 103.001, "the last attempt starts within the grace period: \(delays)")
        #expect(actions == [.disconnect(.timeout)])
    }

    @Test func aServerThatNoLongerKnowsTheSessionEndsItAndLogoutStopsTheAttempts() {
        var machine = ReconnectMachine(policy: SMeetingEngine.resumePolicy)
        machine.joined(graceSeconds: 20)
        _ = machine.connectionLost(now: 0)
        #expect(machine.attemptSucceeded(resumed: false) == [.disconnect(.timeout)])

        machine.joined(graceSeconds: 20)
        _ = machine.connectionLost(now: 0)
        let attempt = machine.currentAttempt
        machine.left()
        #expect(attempt == 0 && !machine.wantsAttempt(0) && machine.currentAttempt == nil)
    }
}
