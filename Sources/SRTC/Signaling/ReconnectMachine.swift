/// Decides what a client does when its WebSocket to the server drops: retry with backoff, resume
/// the session with its id, give up once the server's grace period has passed. SRTC's channels
/// (signaling) and SMeeting's engine (the meeting WebSocket) both follow it.
///
/// A value type without I/O: each event returns the actions the owner performs, so every path
/// is tested without sockets. Times are seconds on a monotonic clock (`Monotonic.seconds()`).
package struct ReconnectMachine: Sendable, Equatable {
    // MARK: - Types

    /// Backoff between attempts.
    package struct Policy: Sendable, Equatable {
        /// Delay before attempt n (0-based); the last value repeats.
        package var delays: [Double] = [0, 0.5, 1, 2, 4]
        /// Attempts stop this long before the grace period ends, so the last one can still resume.
        package var margin: Double = 0.5
        /// Delay after an attempt the server answered with "retry" (its channel is moving to
        /// another node, or the node that answered is draining): the answer will change within
        /// seconds, so the client asks again soon instead of backing off (docs/deploy.md,
        /// "Drain and failover").
        package var retryDelay: Double = 0.25

        package init(delays: [Double] = [0, 0.5, 1, 2, 4], margin: Double = 0.5, retryDelay: Double = 0.25) {
            self.delays = delays
            self.margin = margin
            self.retryDelay = retryDelay
        }

        package func delay(attempt: Int) -> Double {
            guard !delays.isEmpty else { return 1 }
            return delays[min(attempt, delays.count - 1)]
        }
    }

    package enum Phase: Sendable, Equatable {
        /// Not joined (before the first join, or after leaving / disconnecting).
        case idle
        /// Joined with a live connection.
        case connected
        /// The connection dropped at `lostAt`; attempt number `attempt` is scheduled or running.
        case reconnecting(attempt: Int, lostAt: Double)
        /// Ended for good.
        case closed
    }

    package enum Action: Sendable, Equatable {
        /// Tell observers: `channelIsReconnecting`.
        case notifyReconnecting
        /// Try to connect and `join` with the session id after this many seconds.
        case attempt(after: Double)
        /// Tell observers: `didReconnect`; `restartICE` when the media path must be renewed.
        case notifyReconnected
        /// Close everything and tell observers: `didDisconnect(reason)`.
        case disconnect(DisconnectReason)
    }

    // MARK: - State

    package let policy: Policy
    package private(set) var phase: Phase = .idle
    /// The server's `reconnect_grace_seconds`.
    private(set) var graceSeconds: Double = 20
    /// Failed attempts that were not "retry" answers: the index into `policy.delays`.
    private var backoffStep = 0

    package init(policy: Policy = Policy()) {
        self.policy = policy
    }

    // MARK: - Events

    /// The first join succeeded.
    package mutating func joined(graceSeconds: Int) {
        self.graceSeconds = Double(graceSeconds)
        phase = .connected
    }

    /// The WebSocket closed without `leave` or a server `disconnected`.
    package mutating func connectionLost(now: Double) -> [Action] {
        guard case .connected = phase else { return [] }
        phase = .reconnecting(attempt: 0, lostAt: now)
        backoffStep = 0
        return [.notifyReconnecting, .attempt(after: policy.delay(attempt: 0))]
    }

    /// An attempt failed. A refusal that retrying cannot fix (`fatal`, for example a token the
    /// server rejects) ends the session at once; otherwise the next attempt is scheduled unless
    /// it would start after the grace period: after `policy.retryDelay` when the server answered
    /// "retry" (`retrySoon`), else after the next backoff delay.
    package mutating func attemptFailed(now: Double, fatal: DisconnectReason? = nil, retrySoon: Bool = false) -> [Action] {
        guard case .reconnecting(let attempt, let lostAt) = phase else { return [] }
        if let fatal {
            phase = .closed
            return [.disconnect(fatal)]
        }
        let delay: Double
        if retrySoon {
            delay = min(policy.retryDelay, policy.delay(attempt: backoffStep + 1))
        } else {
            backoffStep += 1
            delay = policy.delay(attempt: backoffStep)
        }
        guard now + delay < lostAt + graceSeconds - policy.margin else {
            phase = .closed
            return [.disconnect(.timeout)]
        }
        phase = .reconnecting(attempt: attempt + 1, lostAt: lostAt)
        return [.attempt(after: delay)]
    }

    /// An attempt's `join` answered. `resumed == false` means the server no longer had the
    /// session (the grace period passed there): the user already left, so the channel ends.
    package mutating func attemptSucceeded(resumed: Bool) -> [Action] {
        guard case .reconnecting = phase else { return [] }
        guard resumed else {
            phase = .closed
            return [.disconnect(.timeout)]
        }
        phase = .connected
        return [.notifyReconnected]
    }

    /// The server ended the session (`disconnected` event): never reconnect.
    package mutating func serverEnded(_ reason: DisconnectReason) -> [Action] {
        switch phase {
        case .idle, .closed: return []
        case .connected, .reconnecting:
            phase = .closed
            return [.disconnect(reason)]
        }
    }

    /// The app called `leave`: stop any reconnection.
    package mutating func left() {
        phase = .closed
    }

    /// Whether a scheduled attempt `attempt` is still wanted (a stale timer is ignored).
    package func wantsAttempt(_ attempt: Int) -> Bool {
        if case .reconnecting(let current, _) = phase { return current == attempt }
        return false
    }

    package var currentAttempt: Int? {
        if case .reconnecting(let attempt, _) = phase { return attempt }
        return nil
    }
}
