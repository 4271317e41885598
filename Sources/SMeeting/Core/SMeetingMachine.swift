import SRTC

/// The rules of the meeting session, without I/O: which meeting WebSocket is the live one, what a
/// resume needs (the member token, the session, the last event handled), resuming a dropped
/// connection within the grace period with its back-off, a session replaced after its server node
/// was lost (`rejoin`), and which numbered events are new. `SMeetingEngine` feeds it what happened
/// (a login answered, a socket closed, a timer fired) and carries out the actions it returns:
/// sockets, timers, the meeting's re-entry and delegate calls stay in the engine
/// (`SMeetingEngine+Resume`, docs/meeting-protocol.md "Resuming a session").
///
/// Time is passed in with each event (seconds on a monotonic clock); the machine reads no clock,
/// so `SMeetingMachineTests` runs resumes in virtual time. `Link` names a meeting WebSocket
/// (`MeetingClient` in the SDK, a number in tests); only equality matters.
struct SMeetingMachine<Link: Equatable & Sendable>: Sendable, Equatable {
    // MARK: - Types

    /// What happened.
    enum Event: Sendable, Equatable {
        /// `login` answered on `link`: the session starts.
        case loggedIn(Link, token: String, sessionId: String, graceSeconds: Int)
        /// A meeting event numbered `seq` arrived (nil: an unnumbered one).
        case eventArrived(seq: Int?)
        /// The WebSocket `link` closed (not by a logout).
        case linkClosed(Link)
        /// The timer of resume attempt `attempt` fired.
        case attemptDue(Int)
        /// Attempt `attempt` failed on `link` (nil: before a login answered): no WebSocket, the
        /// login failed, or entering the meeting again on a new session must be retried.
        case attemptFailed(attempt: Int, link: Link?)
        /// The resume login of attempt `attempt` answered on `link`.
        case resumeAnswered(Link, attempt: Int, Answer)
        /// The meeting was entered again on the session that replaced ours (or needed no entry).
        case rejoined(Link, attempt: Int)
    }

    /// How the server answered a resume login.
    enum Answer: Sendable, Equatable {
        /// The session lives on: the server sends the events missed.
        case resumed
        /// The session was lost with the server node that ran it: `sessionId` replaces it, and
        /// the SDK enters the meeting again on it.
        case rejoin(sessionId: String)
        /// The server no longer knows the session (its grace period passed there).
        case newSession
    }

    /// What the engine does, in this order.
    enum Action: Sendable, Equatable {
        /// Hand the event that arrived on (it is new).
        case deliver
        /// Tell the app (`meetingIsReconnecting`, `meetingDidReconnect`).
        case notifyReconnecting
        case notifyReconnected
        /// Fire `.attemptDue(attempt)` after `after` seconds.
        case scheduleAttempt(Int, after: Double)
        /// Open a meeting WebSocket and log in with the session and the last event handled.
        case connect(attempt: Int, token: String, sessionId: String, lastSeq: Int)
        /// Enter the meeting again on `link`'s new session (`rejoined` or `attemptFailed` after).
        case rejoin(Link, attempt: Int)
        /// Close this WebSocket.
        case close(Link)
        /// The session is gone for good: out of the meeting and logged out.
        case sessionLost
    }

    struct Rejoin: Sendable, Equatable {
        let sessionId: String
        let lastSeq: Int
    }

    // MARK: - State

    /// The live meeting WebSocket (nil before login, after logout, or while resuming).
    private(set) var link: Link?
    /// What a resume needs: the member token (`enableIm()` logs in to IM with it too), the
    /// session and the last event handled.
    private(set) var token: String?
    private(set) var sessionId: String?
    private(set) var lastSeq = 0
    /// A rejoin in progress: the session that replaces ours, and the last event handled on ours
    /// (back if the rejoin is retried from a new connection).
    private(set) var rejoining: Rejoin?
    private(set) var reconnect: ReconnectMachine

    init(policy: ReconnectMachine.Policy) {
        reconnect = ReconnectMachine(policy: policy)
    }

    /// The meeting connection dropped; the session is being resumed.
    var resuming: Bool { reconnect.currentAttempt != nil }

    /// A session lives (its connection may be resuming): no second login.
    var isLive: Bool { link != nil || resuming }

    // MARK: - Commands

    /// `logout()`: no resume after this; returns the connection to log out on and close.
    mutating func logOut() -> Link? {
        defer { dropSession() }
        return link
    }

    // MARK: - Events

    /// Takes one event at time `now` (seconds, monotonic) and returns what to do, in order.
    mutating func handle(_ event: Event, now: Double) -> [Action] {
        switch event {
        case .loggedIn(let opened, let token, let sessionId, let grace):
            link = opened
            self.token = token
            self.sessionId = sessionId
            lastSeq = 0
            rejoining = nil
            reconnect = ReconnectMachine(policy: reconnect.policy)
            reconnect.joined(graceSeconds: grace)
            return []
        case .eventArrived(let seq):
            // A resumed session may send again what was handled.
            guard let seq else { return [.deliver] }
            guard seq > lastSeq else { return [] }
            lastSeq = seq
            return [.deliver]
        case .linkClosed(let closed):
            guard link == closed else { return [] }  // a connection that is no longer the session's
            link = nil
            guard token != nil, sessionId != nil else { return [] }
            return follow(reconnect.connectionLost(now: now))
        case .attemptDue(let attempt):
            guard reconnect.wantsAttempt(attempt), let token, let sessionId else { return [] }  // logged out meanwhile
            return [.connect(attempt: attempt, token: token, sessionId: sessionId, lastSeq: lastSeq)]
        case .attemptFailed(let attempt, let failed):
            let closing: [Action] = failed.map { [.close($0)] } ?? []
            if let before = rejoining {
                // The rejoin is tried again from a new connection: the old numbering holds until then.
                lastSeq = before.lastSeq
                rejoining = nil
            }
            guard reconnect.wantsAttempt(attempt) else { return closing }
            return closing + follow(reconnect.attemptFailed(now: now))
        case .resumeAnswered(let answered, let attempt, let answer):
            guard reconnect.wantsAttempt(attempt) else { return [.close(answered)] }  // logged out meanwhile
            switch answer {
            case .resumed:
                link = answered
                return follow(reconnect.attemptSucceeded(resumed: true))
            case .rejoin(let newSession):
                // The new session numbers its events from 1.
                rejoining = Rejoin(sessionId: newSession, lastSeq: lastSeq)
                lastSeq = 0
                return [.rejoin(answered, attempt: attempt)]
            case .newSession:
                return [.close(answered)] + follow(reconnect.attemptSucceeded(resumed: false))
            }
        case .rejoined(let answered, let attempt):
            let replacing = rejoining
            rejoining = nil
            guard reconnect.wantsAttempt(attempt), let replacing else { return [.close(answered)] }
            link = answered
            sessionId = replacing.sessionId
            return follow(reconnect.attemptSucceeded(resumed: true))
        }
    }

    // MARK: - Resuming

    /// Carries out the reconnect machine's steps.
    private mutating func follow(_ steps: [ReconnectMachine.Action]) -> [Action] {
        var actions: [Action] = []
        for step in steps {
            switch step {
            case .notifyReconnecting:
                actions.append(.notifyReconnecting)
            case .attempt(let delay):
                guard let attempt = reconnect.currentAttempt else { continue }
                actions.append(.scheduleAttempt(attempt, after: delay))
            case .notifyReconnected:
                actions.append(.notifyReconnected)
            case .disconnect:
                dropSession()
                actions.append(.sessionLost)
            }
        }
        return actions
    }

    /// Forgets the session (logout, or a session that could not be resumed).
    private mutating func dropSession() {
        link = nil
        token = nil
        sessionId = nil
        rejoining = nil
        reconnect.left()
    }
}
