import Foundation
import RTCNet
import SMeetingProtocol
import SRTC

/// A dropped meeting WebSocket is not the end of the meeting: the server keeps the session for
/// its grace period (`reconnect_grace_seconds`, SRTC's), and the SDK reconnects and logs in with
/// the session id and the last event it handled. The server then sends the events missed, in
/// order (events carry `seq`; one handled already is skipped). The meeting's SRTC channel
/// resumes on its own meanwhile. Only when the grace period ends without a resume (or the
/// server no longer knows the session) does `meetingConnectionDidLose` fire: out of the meeting
/// and logged out. A session lost with the server node that ran it (the login answers `rejoin`:
/// the node drained or died) is replaced by the new one, which enters the meeting again by itself
/// (`+Rejoin`).
extension SMeetingEngine {
    /// When to try again: at once, then every 300 ms until the grace period ends (a member's
    /// meeting comes back as soon as the network does; SRTC's channel backs off further).
    static let resumePolicy = ReconnectMachine.Policy(delays: [0, 0.3], margin: 0)

    /// Whether the meeting connection is being resumed after a drop.
    public var isReconnecting: Bool { state.withLock { $0.resuming } }

    /// The WebSocket `client` closed on its own (not by `logout`).
    func connectionDropped(_ client: MeetingClient) {
        let resume = state.withLock { s -> (token: String, sessionId: String, actions: [ReconnectMachine.Action])? in
            guard s.client === client else { return nil }
            s.client = nil
            guard let token = s.token, let sessionId = s.sessionId else { return nil }
            return (token, sessionId, s.reconnect.connectionLost(now: Monotonic.seconds()))
        }
        guard let resume else { return }
        Task { await self.resumeSession(token: resume.token, sessionId: resume.sessionId, resume.actions) }
    }

    /// Carries out the machine's actions: attempts until one resumes, the grace period ends or
    /// the server starts a new session instead (then the session is lost), or a logout.
    private func resumeSession(token: String, sessionId: String, _ first: [ReconnectMachine.Action]) async {
        var actions = first
        while true {
            var delay: Double?
            for action in actions {
                switch action {
                case .attempt(let after): delay = after
                case .disconnect: return connectionLost()
                case .notifyReconnecting: notify { d, engine in d.meetingIsReconnecting(engine) }
                case .notifyReconnected: notify { d, engine in d.meetingDidReconnect(engine) }
                }
            }
            guard let delay, let attempt = state.withLock({ $0.reconnect.currentAttempt }) else { return }  // resumed, or logged out
            if delay > 0 { try? await TimerQueue.shared.sleep(for: .seconds(delay)) }
            guard state.withLock({ $0.reconnect.wantsAttempt(attempt) }) else { return }  // logged out meanwhile
            actions = await attemptResume(token: token, sessionId: sessionId, attempt: attempt)
        }
    }

    /// One attempt: a new WebSocket and `login` with the session and the last event handled.
    private func attemptResume(token: String, sessionId: String, attempt: Int) async -> [ReconnectMachine.Action] {
        let lastSeq = state.withLock { $0.lastSeq }
        // A resume is told before the events missed, which the reader handles after the answer.
        let told: @Sendable (LoginResp) -> Void = { [weak self] resp in
            guard resp.resumed, let self, self.state.withLock({ $0.reconnect.wantsAttempt(attempt) }) else { return }
            self.notify { d, engine in d.meetingDidReconnect(engine) }
        }
        guard let (client, resp) = try? await connect(LoginReq(token: token, sessionId: sessionId, lastSeq: lastSeq), onResponse: told) else {
            return state.withLock { s in s.reconnect.wantsAttempt(attempt) ? s.reconnect.attemptFailed(now: Monotonic.seconds()) : [] }
        }
        // The session was lost with the server node that ran it: the new one enters the meeting again.
        let rejoin = !resp.resumed && resp.rejoin == true
        if rejoin, state.withLock({ $0.reconnect.wantsAttempt(attempt) }), await !rejoinMeeting(on: client) {
            client.close()
            return state.withLock { s in s.reconnect.wantsAttempt(attempt) ? s.reconnect.attemptFailed(now: Monotonic.seconds()) : [] }
        }
        let (kept, actions) = state.withLock { s -> (Bool, [ReconnectMachine.Action]) in
            guard s.reconnect.wantsAttempt(attempt) else { return (false, []) }  // logged out meanwhile
            if resp.resumed || rejoin { s.client = client }
            if rejoin { s.sessionId = resp.sessionId }
            return (resp.resumed || rejoin, s.reconnect.attemptSucceeded(resumed: resp.resumed || rejoin))
        }
        if !kept { client.close() }
        // A resume was told from the answer already; a rejoin is told now.
        return resp.resumed ? actions.filter { $0 != .notifyReconnected } : actions
    }

    /// The session is gone for good: out of the meeting and logged out.
    func connectionLost() {
        guard state.withLock({ $0.uid != nil && $0.client == nil }) else { return }  // logged out meanwhile
        if isInRoom || isInWaitingRoom { tearDown(.disconnected) }
        state.withLock { $0.dropLogin() }
        notify { d, engine in d.meetingConnectionDidLose(engine) }
    }

    /// Whether an event numbered `seq` is new (a resumed session may send again what was handled).
    func acceptSequence(_ seq: Int?) -> Bool {
        guard let seq else { return true }
        return state.withLock { s in
            guard seq > s.lastSeq else { return false }
            s.lastSeq = seq
            return true
        }
    }
}
