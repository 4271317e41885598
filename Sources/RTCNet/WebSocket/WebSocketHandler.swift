/// The loop-confined engine of one WebSocket connection: reads frames through a
/// `WebSocketReceiver`, answers pings, runs the closing handshake (RFC 6455 §7) and fails the
/// connection with the right status when the peer breaks the protocol.
// @unchecked Sendable: all mutable state is used only on its stream's event-loop thread; other threads reach it through `loop.execute`.
final class WebSocketHandler: StreamHandler, @unchecked Sendable {
    enum Role { case server, client }

    // MARK: - State

    let role: Role
    let configuration: WebSocketConfiguration
    private var receiver: WebSocketReceiver
    private(set) var stream: StreamConnection?
    /// The public face; released once the close has been delivered.
    var socket: WebSocket?
    /// Called once on the loop thread after the connection closed (the server's registry hook).
    var onClosed: (() -> Void)?
    private var sentClose = false
    private var receivedClose = false
    private var closeInfo: WebSocketCloseInfo?
    private var lastReceive: UInt64 = 0
    private var pingTimer: TimerID?
    /// A fragmented message is being assembled and must end before `stream.deadline`.
    private var messageDeadlineArmed = false

    init(role: Role, configuration: WebSocketConfiguration) {
        self.role = role
        self.configuration = configuration
        receiver = WebSocketReceiver(expectsMaskedFrames: role == .server, maxMessageSize: configuration.maxMessageSize)
    }

    // MARK: - Attaching

    /// Takes over `stream` (after the 101). Sending works from here on; call `start()` to read.
    func attach(to stream: StreamConnection) {
        self.stream = stream
        stream.handler = self
        stream.deadline = nil
        stream.maxOutboundBytes = configuration.maxBufferedBytes
        stream.writeStallTimeout = Monotonic.nanoseconds(configuration.writeTimeout)
    }

    /// Starts reading: processes frames that arrived with the handshake, then whatever follows.
    func start() {
        guard let stream, !stream.isClosed else { return }
        stream.setReading(true)
        lastReceive = Monotonic.now()
        schedulePing()
        if !stream.inbound.isEmpty { streamReceived(stream) }
    }

    // MARK: - Sending (loop thread)

    func send(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) {
        guard let stream, !stream.isClosed, !sentClose else { return }
        var frame: [UInt8] = []
        WebSocketFrame.encode(fin: true, opcode: opcode, payload: payload, maskingKey: maskingKey(), into: &frame)
        stream.write(frame)
    }

    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        payload.withUnsafeBytes { send(opcode, $0) }
    }

    /// Starts the closing handshake (§7.1.2); the peer has `closeTimeout` to answer.
    func close(code: WebSocketCloseCode, reason: String) {
        guard let stream, !stream.isClosed, !sentClose else { return }
        let wireCode = code.isAllowedOnWire ? code : .normalClosure
        if closeInfo == nil { closeInfo = WebSocketCloseInfo(code: wireCode, reason: reason) }
        messageDeadlineArmed = false
        sendClose(code: wireCode, reason: reason)
        if receivedClose {
            finishClosing()
        } else {
            stream.deadline = Monotonic.now() &+ Monotonic.nanoseconds(configuration.closeTimeout)
        }
    }

    // MARK: - StreamHandler

    func streamReceived(_ stream: StreamConnection) {
        while !receivedClose, !stream.isClosed {
            let event: WebSocketReceiver.Event
            do {
                guard let next = try receiver.next(from: &stream.inbound) else {
                    trackMessageDeadline()
                    return
                }
                event = next
            } catch {
                fail(error)
                return
            }
            lastReceive = Monotonic.now()
            trackMessageDeadline()
            switch event {
            case .message(let message):
                socket?.deliver(message)
            case .ping(let payload):
                send(.pong, payload)  // §5.5.2: same application data
            case .pong:
                break
            case .close(let code, let reason):
                receivedClose = true
                if closeInfo == nil { closeInfo = WebSocketCloseInfo(code: code ?? .noStatusReceived, reason: reason) }
                // §5.5.1: answer with a Close, echoing the status code.
                if !sentClose { sendClose(code: code, reason: "") }
                finishClosing()
            }
        }
        if receivedClose { stream.inbound.clear() }
    }

    func streamReadClosed(_ stream: StreamConnection) {
        if closeInfo == nil { closeInfo = WebSocketCloseInfo(code: .abnormalClosure, reason: "connection closed without a Close frame") }
        stream.close()
    }

    func streamDeadlineExpired(_ stream: StreamConnection) {
        if messageDeadlineArmed, !sentClose {
            // A fragmented message stayed unfinished too long.
            messageDeadlineArmed = false
            fail(.messageTimedOut(seconds: Double(Monotonic.nanoseconds(configuration.messageTimeout)) / 1e9))
            return
        }
        // The peer did not complete the closing handshake in time.
        stream.close(error: .timeout)
    }

    func streamClosed(_ stream: StreamConnection, error: NetError?) {
        if let pingTimer { stream.loop.cancelTimer(pingTimer) }
        pingTimer = nil
        let info = closeInfo ?? WebSocketCloseInfo(code: .abnormalClosure, reason: error.map { "\($0)" } ?? "")
        closeInfo = info
        self.stream = nil
        let socket = self.socket
        self.socket = nil
        socket?.didClose(info)
        onClosed?()
        onClosed = nil
    }

    // MARK: - Internals

    /// Arms the stream deadline when a fragmented message begins and clears it when it ends; the
    /// closing handshake's deadline, once set, takes over.
    private func trackMessageDeadline() {
        guard let stream, !sentClose else { return }
        if receiver.isAssemblingMessage, !messageDeadlineArmed {
            messageDeadlineArmed = true
            stream.deadline = Monotonic.now() &+ Monotonic.nanoseconds(configuration.messageTimeout)
        } else if !receiver.isAssemblingMessage, messageDeadlineArmed {
            messageDeadlineArmed = false
            stream.deadline = nil
        }
    }

    /// Clients mask every frame with a fresh unpredictable key (§5.3); servers never mask.
    private func maskingKey() -> UInt32? {
        role == .client ? UInt32.random(in: .min ... .max) : nil
    }

    private func sendClose(code: WebSocketCloseCode?, reason: String) {
        guard !sentClose else { return }
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            // A control frame carries at most 125 bytes (§5.5); cut the reason on a character boundary.
            var reasonBytes = Array(reason.utf8)
            while reasonBytes.count > 123 { reasonBytes = Array(String(decoding: reasonBytes, as: UTF8.self).dropLast().utf8) }
            payload += reasonBytes
        }
        send(.close, payload)
        sentClose = true
    }

    /// Both Close frames have been exchanged (§7.1.1): the server closes TCP at once, the client
    /// half-closes and waits for the server's FIN.
    private func finishClosing() {
        guard let stream, sentClose, receivedClose else { return }
        switch role {
        case .server: stream.closeAfterFlush()
        case .client: stream.closeAfterFlush(linger: true, lingerTimeout: configuration.closeTimeout)
        }
    }

    /// Fails the connection (§7.1.7): Close with the error's code, then TCP close.
    private func fail(_ error: WebSocketError) {
        guard let stream else { return }
        if closeInfo == nil { closeInfo = WebSocketCloseInfo(code: error.closeCode, reason: error.description) }
        sendClose(code: error.closeCode, reason: "")
        receivedClose = true
        stream.inbound.clear()
        stream.closeAfterFlush(linger: true, lingerTimeout: configuration.closeTimeout)
    }

    private func schedulePing() {
        guard let interval = configuration.pingInterval, let stream else { return }
        let period = Monotonic.nanoseconds(interval)
        pingTimer = stream.loop.scheduleTimer(at: Monotonic.now() &+ period) { [weak self] in
            guard let self, let stream = self.stream, !stream.isClosed, !self.sentClose else { return }
            if Monotonic.now() &- self.lastReceive > 2 * period {
                self.closeInfo = WebSocketCloseInfo(code: .abnormalClosure, reason: "no frame from the peer in two ping intervals")
                stream.close(error: .timeout)
                return
            }
            self.send(.ping, [])
            self.schedulePing()
        }
    }
}
