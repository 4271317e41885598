import Foundation
import SMeetingProtocol

/// A dropped meeting WebSocket is not the end of the meeting: the server keeps the session for
/// its grace period (`reconnect_grace_seconds`, SRTC's), and the SDK reconnects and logs in with
/// the session id and the last event it handled. The server then sends the events missed, in
/// order (events carry `seq`; one handled already is skipped). The meeting's SRTC channel
/// resumes on its own meanwhile. Only when the grace period ends without a resume (or the
/// server no longer knows the session) does `meetingConnectionDidLose` fire: out of the meeting
/// and logged out.
extension SMeetingEngine {
    /// The delay between two reconnection attempts.
    static let resumeRetryDelay: Duration = .milliseconds(300)

    /// Whether the meeting connection is being resumed after a drop.
    public var isReconnecting: Bool { state.withLock { $0.resuming } }

    /// The WebSocket `client` closed on its own (not by `logout`).
    func connectionDropped(_ client: MeetingClient) {
        let resume = state.withLock { s -> (token: String, sessionId: String, grace: Int)? in
            guard s.client === client else { return nil }
            s.client = nil
            guard let token = s.token, let sessionId = s.sessionId else { return nil }
            s.resuming = true
            return (token, sessionId, s.graceSeconds)
        }
        guard let resume else { return }
        let deadline = Date().addingTimeInterval(Double(resume.grace))
        Task { await self.resumeSession(token: resume.token, sessionId: resume.sessionId, until: deadline) }
    }

    /// Tries to resume until `deadline`; gives up when the server starts a new session instead.
    private func resumeSession(token: String, sessionId: String, until deadline: Date) async {
        while Date() < deadline, state.withLock({ $0.resuming }) {
            let lastSeq = state.withLock { $0.lastSeq }
            if let (client, resp) = try? await connect(LoginReq(token: token, sessionId: sessionId, lastSeq: lastSeq)) {
                guard resp.resumed else {
                    client.close()
                    break
                }
                let kept = state.withLock { s -> Bool in
                    guard s.resuming else { return false }
                    s.client = client
                    s.resuming = false
                    return true
                }
                if !kept { client.close() }  // logged out meanwhile
                return
            }
            try? await Task.sleep(for: Self.resumeRetryDelay)
        }
        connectionLost()
    }

    /// The session is gone for good: out of the meeting and logged out.
    func connectionLost() {
        guard state.withLock({ $0.resuming }) else { return }
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
