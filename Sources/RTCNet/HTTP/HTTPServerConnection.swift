import Synchronization

/// One accepted HTTP/1.1 connection: parses requests, runs them through the delegate one at a
/// time (responses stay in request order when clients pipeline), enforces the read deadlines,
/// and hands the stream to a `WebSocketHandler` on an accepted upgrade. Loop-confined, except
/// `idleSince`, which the server reads when it must shed a connection.
// @unchecked Sendable: every `var` is touched only on its stream's loop thread; `idleSince`, read from the server, is an Atomic.
final class HTTPServerConnection: StreamHandler, @unchecked Sendable {
    // MARK: - State

    let id: Int
    /// When the connection last became idle (monotonic ns): no request under way, no partial
    /// request buffered, not a WebSocket. 0 while busy, or once chosen to be shed.
    let idleSince = Atomic<UInt64>(0)
    private let server: HTTPServer
    private let stream: StreamConnection
    private var parser: HTTPRequestParser
    private var lastPhase: HTTPRequestParser.Phase = .idle
    /// A request is with the delegate; further bytes wait in `stream.inbound`.
    private var inFlight = false
    private var sentContinue = false
    private var shuttingDown = false
    private var readClosed = false
    private var webSocket: WebSocketHandler?
    /// Buffered pipelined bytes past which reading pauses while a request is in flight.
    private let pipelineLimit: Int
    /// Unsent response bytes past which no further pipelined request is answered (and reading
    /// pauses) until the client reads: a client that writes without reading cannot make the
    /// server queue output without bound.
    private let outputLimit: Int
    /// `processInbound` is on the stack: a response written synchronously lets its loop continue
    /// instead of calling it again (pipelined requests once recursed until the stack overflowed).
    private var processing = false
    /// Reading paused because `outputLimit` was reached; resumes when the output drains.
    private var waitingForDrain = false

    init(id: Int, server: HTTPServer, stream: StreamConnection) {
        self.id = id
        self.server = server
        self.stream = stream
        parser = HTTPRequestParser(limits: server.configuration.limits)
        pipelineLimit = max(64 * 1024, server.configuration.limits.maxHeaderBytes)
        outputLimit = 256 * 1024
        stream.writeStallTimeout = Monotonic.nanoseconds(server.configuration.writeTimeout)
        idleSince.store(Monotonic.now(), ordering: .relaxed)  // connected, nothing sent yet
    }

    private var configuration: HTTPServerConfiguration { server.configuration }

    /// The loop this connection lives on.
    var streamLoop: EventLoop { stream.loop }

    // MARK: - StreamHandler

    func streamActive(_ stream: StreamConnection) {
        // Before the first byte of a request only the idle timeout applies.
        stream.deadline = Monotonic.now() &+ Monotonic.nanoseconds(configuration.idleTimeout)
    }

    func streamReceived(_ stream: StreamConnection) {
        idleSince.store(0, ordering: .relaxed)
        processInbound()
    }

    func streamFlushed(_ stream: StreamConnection) {
        guard waitingForDrain else { return }
        waitingForDrain = false
        stream.setReading(true)
        processInbound()
    }

    func streamReadClosed(_ stream: StreamConnection) {
        readClosed = true
        // A client may half-close after its last request: finish answering, then close.
        if !inFlight, !waitingForDrain { stream.closeAfterFlush() }
    }

    func streamDeadlineExpired(_ stream: StreamConnection) {
        switch lastPhase {
        case .idle: stream.close(error: .timeout)
        case .head, .body:
            // 408 tells a live but slow client why (RFC 9110 §15.5.9); then the connection ends.
            var out: [UInt8] = []
            HTTPResponse.text(408, "request not received in time\n").serialize(into: &out, keepAlive: false)
            stream.write(out)
            stream.closeAfterFlush(linger: true, lingerTimeout: configuration.lingerTimeout)
        }
    }

    func streamClosed(_ stream: StreamConnection, error: NetError?) {
        if webSocket == nil { server.connectionClosed(id) }
    }

    // MARK: - Requests

    /// Answers the buffered requests one after another, in a loop: a response made on the I/O
    /// thread returns here rather than recursing, and the loop stops while the client leaves too
    /// much of our output unread.
    private func processInbound() {
        guard !processing else { return }
        processing = true
        defer {
            processing = false
            noteIdleness()
        }
        while !inFlight, !stream.isClosed, webSocket == nil {
            if stream.bufferedOutboundBytes > outputLimit {
                waitingForDrain = true
                stream.setReading(false)
                return
            }
            let request: HTTPRequest
            do {
                guard let next = try parser.next(from: &stream.inbound) else {
                    trackPhase()
                    if readClosed { stream.closeAfterFlush() }
                    return
                }
                request = next
            } catch {
                reject(error)
                return
            }
            lastPhase = .idle
            sentContinue = false
            handle(request)
        }
        if inFlight, stream.inbound.readableBytes > pipelineLimit { stream.setReading(false) }
    }

    /// Publishes whether the connection is idle (for shedding under pressure).
    private func noteIdleness() {
        let idle = !inFlight && webSocket == nil && !stream.isClosed && parser.phase == .idle && stream.inbound.isEmpty
        if !idle {
            idleSince.store(0, ordering: .relaxed)
        } else if idleSince.load(ordering: .relaxed) == 0 {
            idleSince.store(Monotonic.now(), ordering: .relaxed)
        }
    }

    /// The server chose this connection to make room: close it unless a request began meanwhile.
    func closeIfIdle() {
        guard !inFlight, webSocket == nil, parser.phase == .idle, stream.inbound.isEmpty else { return }
        stream.close()
    }

    /// Moves the read deadline when the parser enters a new phase; deadlines are absolute, so a
    /// client dripping bytes cannot extend them.
    private func trackPhase() {
        let phase = parser.phase
        let now = Monotonic.now()
        switch (lastPhase, phase) {
        case (.idle, .head):
            stream.deadline = now &+ Monotonic.nanoseconds(configuration.headerTimeout)
        case (.idle, .body), (.head, .body):
            stream.deadline = now &+ Monotonic.nanoseconds(configuration.bodyTimeout)
        default:
            break
        }
        if case .body(_, true) = phase, !sentContinue {
            sentContinue = true
            stream.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        lastPhase = phase
    }

    private func handle(_ incoming: HTTPRequest) {
        var request = incoming
        request.remoteAddress = stream.remoteAddress
        inFlight = true
        stream.deadline = nil
        switch WebSocketHandshake.check(request) {
        case .notUpgrade:
            break
        case .invalid(let response):
            respond(response, to: request)
            return
        case .valid(let key):
            startUpgrade(request, key: key)
            return
        }
        if let response = server.delegate.respondImmediately(to: request) {
            respond(response, to: request)
            return
        }
        let delegate = server.delegate
        let loop = stream.loop
        let pending = request
        Task {
            let response = await delegate.respond(to: pending)
            loop.execute { self.respond(response, to: pending) }
        }
    }

    private func respond(_ response: HTTPResponse, to request: HTTPRequest) {
        guard !stream.isClosed else { return }
        let keepAlive = request.wantsKeepAlive && !shuttingDown && !server.isStopping && !readClosed
        var out: [UInt8] = []
        response.serialize(into: &out, keepAlive: keepAlive, headOnly: request.method == "HEAD")
        stream.write(out)
        inFlight = false
        guard keepAlive else {
            stream.closeAfterFlush(linger: true, lingerTimeout: configuration.lingerTimeout)
            return
        }
        stream.deadline = Monotonic.now() &+ Monotonic.nanoseconds(configuration.idleTimeout)
        if !waitingForDrain { stream.setReading(true) }
        processInbound()
    }

    /// Answers a request the parser refused, then closes: the stream cannot be resynchronised.
    private func reject(_ error: HTTPParserError) {
        var out: [UInt8] = []
        let response = server.delegate.refusal(error) ?? HTTPResponse.text(error.status, error.description + "\n")
        response.serialize(into: &out, keepAlive: false)
        stream.inbound.clear()
        stream.write(out)
        stream.closeAfterFlush(linger: true, lingerTimeout: configuration.lingerTimeout)
    }

    // MARK: - WebSocket upgrade

    private func startUpgrade(_ request: HTTPRequest, key: String) {
        let delegate = server.delegate
        let loop = stream.loop
        Task {
            let decision = await delegate.upgrade(request)
            loop.execute { self.finishUpgrade(request, key: key, decision: decision) }
        }
    }

    private func finishUpgrade(_ request: HTTPRequest, key: String, decision: WebSocketUpgradeDecision) {
        guard !stream.isClosed else { return }
        switch decision {
        case .reject(let response):
            respond(response, to: request)
        case .accept(let acceptance):
            if shuttingDown || server.isStopping {
                respond(.text(503, "server shutting down\n"), to: request)
                return
            }
            stream.write(WebSocketHandshake.acceptResponse(key: key, subprotocol: acceptance.subprotocol, extraHeaders: acceptance.headers))
            let handler = WebSocketHandler(role: .server, configuration: acceptance.configuration ?? configuration.webSocket)
            let socket = WebSocket(handler: handler, loop: stream.loop, remoteAddress: stream.remoteAddress, upgradeRequest: request, responseHeaders: acceptance.headers, subprotocol: acceptance.subprotocol)
            handler.socket = socket
            let server = self.server, id = self.id
            handler.onClosed = { server.connectionClosed(id) }
            webSocket = handler
            inFlight = false
            handler.attach(to: stream)
            // The owner may send from onOpen; frames are read only after it returns.
            acceptance.onOpen(socket)
            handler.start()
        }
    }

    // MARK: - Shutdown

    /// Stop taking requests: close if idle, otherwise answer the one in progress with
    /// `Connection: close`. WebSockets get a Close 1001 (going away).
    func beginShutdown() {
        shuttingDown = true
        if let webSocket {
            webSocket.close(code: .goingAway, reason: "server shutting down")
            return
        }
        if !inFlight, parser.phase == .idle, stream.inbound.isEmpty { stream.close() }
    }

    /// Grace period over: drop the connection.
    func forceClose() {
        stream.close(error: .timeout)
    }
}
