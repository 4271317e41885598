import Synchronization

/// The server side's read loop of one request/response session over a WebSocket, as the
/// signaling session (docs/protocol.md) and the meeting session (docs/meeting-protocol.md) both
/// run it: text messages handled one at a time in arrival order, a deadline for the first request
/// that admits the session (`join`, `login`), and a limit on malformed messages.
package final class WebSocketSessionReader: Sendable {
    /// How long a new session may take to be admitted before it is closed (1008).
    package let admissionTimeout: Duration
    /// The admitting request's name, for the close reason ("no join within 10 s").
    package let admission: String
    /// Malformed messages tolerated within 10 s; one more closes the session (1008).
    package let maxBadMessagesPer10s: Int

    private let socket: WebSocket
    /// Where the admission deadline waits: a timer queue drops a cancelled deadline at once, where
    /// a cancelled `Task.sleep` held memory for the full timeout.
    private let timers: TimerQueue
    /// Arrival times (monotonic) of recent malformed messages.
    private let badMessages = Mutex<[ContinuousClock.Instant]>([])

    package init(socket: WebSocket, admission: String, admissionTimeout: Duration, maxBadMessagesPer10s: Int,
                 timers: TimerQueue = .shared) {
        self.socket = socket
        self.timers = timers
        self.admission = admission
        self.admissionTimeout = admissionTimeout
        self.maxBadMessagesPer10s = maxBadMessagesPer10s
    }

    /// Starts the loop; returns at once. Each text message goes to `receive`, awaited before the
    /// next is read; a binary message counts as malformed (`onBadMessage`). At the admission
    /// deadline, a session that `admitted()` says is still waiting is closed. `closed` runs once,
    /// after the socket closed and the last message was handled.
    package func start(admitted: @escaping @Sendable () -> Bool, onBadMessage: @escaping @Sendable (String) -> Void,
                       receive: @escaping @Sendable (String) async -> Void, closed: @escaping @Sendable () async -> Void) {
        let messages = socket.messages
        Task { [self] in
            let deadline = timers.schedule(after: admissionTimeout) { [self] in
                guard !admitted() else { return }
                socket.close(code: .policyViolation, reason: "no \(admission) within \(admissionTimeout.components.seconds) s")
            }
            for await message in messages {
                guard case .text(let text) = message else {
                    onBadMessage("binary messages are not part of the protocol")
                    continue
                }
                await receive(text)
            }
            timers.cancel(deadline)
            await closed()
        }
    }

    /// Counts one malformed message; more than `maxBadMessagesPer10s` within 10 s closes the
    /// socket with 1008. Returns the count within the window.
    @discardableResult
    package func countBadMessage() -> Int {
        let now = ContinuousClock.now
        let count = badMessages.withLock { times -> Int in
            times.removeAll { now - $0 >= .seconds(10) }
            times.append(now)
            return times.count
        }
        if count > maxBadMessagesPer10s {
            socket.close(code: .policyViolation, reason: "too many malformed messages")
        }
        return count
    }
}
