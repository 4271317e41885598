import SRTCCore

/// The system's call state as the audio session sees it (seed 002, `AudioCallState`; CallKit's
/// `CXCall` on iOS).
public enum AudioCallState: String, Sendable, CaseIterable {
    /// No call.
    case idle
    /// A call rings, not answered yet.
    case incoming
    /// A call this device places, not answered yet.
    case outgoing
    /// A call is connected.
    case connected
    /// A call is held.
    case onHold
}

/// When the audio session may be rebuilt after an interruption (seed 002,
/// `audioRouteSessionDidRecoverFromInterruption`): "at the moment a system phone call hangs up,
/// the audio hardware hasn't been released yet, so the SDK waits until the call has really ended
/// and the app is back in the foreground before rebuilding the session, and retries on failure;
/// this callback fires only after a real, successful recovery". Platform-neutral: events in,
/// actions out, so the rule is table-tested on Linux; `AudioRouteSession` (iOS) feeds it the
/// audio session's, CallKit's and the application's notifications and carries the actions out.
///
/// The session is rebuilt once all hold: it was interrupted; the interruption ended (the
/// system said so, or a call that was on ended); no call is on; the app is in the foreground;
/// no rebuild is under way. A failed rebuild is retried after 0.5 s, doubling up to 8 s, while
/// the same conditions hold.
struct AudioInterruptionRecovery: Sendable {
    enum Event: Equatable, Sendable {
        case interruptionBegan
        case interruptionEnded
        case callStateChanged(AudioCallState)
        case foregroundChanged(Bool)
        /// The rebuild asked for by `.rebuildSession` finished.
        case rebuildFinished(succeeded: Bool)
        /// The delay of a `.retry` ran out.
        case retryDue
    }

    enum Action: Equatable, Sendable {
        case reportInterrupted
        case reportCallState(AudioCallState)
        /// Reactivate the audio session and restart what played or captured.
        case rebuildSession
        case reportRecovered
        /// Send `.retryDue` after this many seconds.
        case retry(afterSeconds: Double)
    }

    private(set) var interrupted = false
    private var interruptionOver = false
    private var call = AudioCallState.idle
    private var foreground = true
    private var rebuilding = false
    private var retryPending = false
    private var failures = 0

    /// - Parameter foreground: whether the app is in the foreground now.
    init(foreground: Bool = true) {
        self.foreground = foreground
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .interruptionBegan:
            guard !interrupted else { return [] }
            interrupted = true
            interruptionOver = false
            failures = 0
            return [.reportInterrupted]
        case .interruptionEnded:
            interruptionOver = true
            return rebuildIfReady()
        case .callStateChanged(let state):
            guard state != call else { return [] }
            let hadCall = call != .idle
            call = state
            if hadCall, state == .idle { interruptionOver = true }
            return [.reportCallState(state)] + rebuildIfReady()
        case .foregroundChanged(let now):
            foreground = now
            return rebuildIfReady()
        case .rebuildFinished(let succeeded):
            rebuilding = false
            guard interrupted else { return [] }
            if succeeded {
                interrupted = false
                failures = 0
                return [.reportRecovered]
            }
            failures += 1
            retryPending = true
            return [.retry(afterSeconds: min(8, 0.5 * Double(1 << min(failures - 1, 4))))]
        case .retryDue:
            retryPending = false
            return rebuildIfReady()
        }
    }

    private mutating func rebuildIfReady() -> [Action] {
        guard interrupted, interruptionOver, call == .idle, foreground, !rebuilding, !retryPending else { return [] }
        rebuilding = true
        return [.rebuildSession]
    }
}
