import Foundation
import RTCNet
import SMeetingProtocol
import SRTC
import Synchronization

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

    /// Feeds one event to the session's rules and carries out what they say.
    func sessionEvent(_ event: SMeetingMachine<MeetingClient>.Event) {
        perform(state.withLock { $0.session.handle(event, now: Monotonic.seconds()) })
    }

    /// The WebSocket `client` closed on its own (not by `logout`).
    func connectionDropped(_ client: MeetingClient) {
        sessionEvent(.linkClosed(client))
    }

    /// Carries out the session's actions: attempts until one resumes, the grace period ends or
    /// the server starts a new session instead (then the session is lost), or a logout.
    private func perform(_ actions: [SMeetingMachine<MeetingClient>.Action]) {
        for action in actions {
            switch action {
            case .deliver: break  // `receiveEvent` hands the event on
            case .notifyReconnecting: notify { d, engine in d.meetingIsReconnecting(engine) }
            case .notifyReconnected: notify { d, engine in d.meetingDidReconnect(engine) }
            case .scheduleAttempt(let attempt, let after):
                Task {
                    if after > 0 { try? await TimerQueue.shared.sleep(for: .seconds(after)) }
                    self.sessionEvent(.attemptDue(attempt))
                }
            case .connect(let attempt, let token, let sessionId, let lastSeq):
                Task { await self.attemptResume(attempt: attempt, LoginReq(token: token, sessionId: sessionId, lastSeq: lastSeq)) }
            case .rejoin(let client, let attempt):
                Task {
                    // The session was lost with the server node that ran it: the new one enters the meeting again.
                    let entered = await self.rejoinMeeting(on: client)
                    self.sessionEvent(entered ? .rejoined(client, attempt: attempt) : .attemptFailed(attempt: attempt, link: client))
                }
            case .close(let client): client.close()
            case .sessionLost: connectionLost()
            }
        }
    }

    /// One attempt: a new WebSocket and `login` with the session and the last event handled.
    private func attemptResume(attempt: Int, _ req: LoginReq) async {
        // The answer is handled on the reader: a resume is told before the events missed, which
        // the reader handles after it. What closes or enters the meeting again runs after.
        let later = Mutex<[SMeetingMachine<MeetingClient>.Action]?>(nil)
        let told: @Sendable (MeetingClient, LoginResp) -> Void = { [weak self] client, resp in
            guard let self else { return }
            let answer: SMeetingMachine<MeetingClient>.Answer =
                resp.resumed ? .resumed : resp.rejoin == true ? .rejoin(sessionId: resp.sessionId) : .newSession
            let actions = self.state.withLock { $0.session.handle(.resumeAnswered(client, attempt: attempt, answer), now: Monotonic.seconds()) }
            self.perform(actions.filter { $0 == .notifyReconnected })
            later.withLock { $0 = actions.filter { $0 != .notifyReconnected } }
        }
        _ = try? await connect(req, onAnswer: told)
        // Once answered, the answer decides (a connection that fails after it is a drop of its own).
        guard let actions = later.withLock({ $0 }) else { return sessionEvent(.attemptFailed(attempt: attempt, link: nil)) }
        perform(actions)
    }

    /// The session is gone for good: out of the meeting and logged out.
    func connectionLost() {
        meetingEvent(.sessionLost)
        _ = state.withLock { $0.dropLogin() }
        notify { d, engine in d.meetingConnectionDidLose(engine) }
    }

    /// Whether an event numbered `seq` is new (a resumed session may send again what was handled).
    func acceptSequence(_ seq: Int?) -> Bool {
        state.withLock { $0.session.handle(.eventArrived(seq: seq), now: 0) } == [.deliver]
    }
}
