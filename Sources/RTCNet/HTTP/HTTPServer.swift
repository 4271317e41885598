import Dispatch
import Synchronization

/// An HTTP/1.1 server with WebSocket upgrades on a pool of event-loop threads.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 8080), delegate: MyRoutes())
/// try server.start()
/// print(server.port)
/// …
/// await server.shutdown(gracePeriod: .seconds(5))
/// ```
public final class HTTPServer: Sendable {
    // MARK: - State

    /// The settings given at creation.
    public let configuration: HTTPServerConfiguration
    let delegate: any HTTPServerDelegate
    private let providedGroup: EventLoopGroup?
    /// The context new TLS connections start from; `replaceTLS` swaps it while connections made
    /// earlier keep the one they started with (each `SSL` holds a reference to its `SSL_CTX`).
    private let tlsContext: Mutex<TLSContext?>
    private struct State {
        var group: EventLoopGroup?
        var listener: TCPListener?
        var connections: ConnectionTable<HTTPServerConnection>
        var nextID = 0
        var started = false
        var stopping = false
    }
    private let state: Mutex<State>

    /// Descriptors kept free for everything that is not an HTTP connection (listening and UDP
    /// sockets, the database, files served, event-loop wakeups).
    public static let reservedDescriptors = 128

    /// - Parameters:
    ///   - configuration: address, limits and timeouts.
    ///   - delegate: answers requests and upgrades.
    ///   - group: loops to run on; by default the server starts its own `configuration.loopCount`
    ///     threads and stops them in `shutdown`.
    public init(configuration: HTTPServerConfiguration = .init(), delegate: any HTTPServerDelegate, group: EventLoopGroup? = nil) {
        self.configuration = configuration
        self.delegate = delegate
        providedGroup = group
        tlsContext = Mutex(configuration.tls.flatMap { try? TLSContext(configuration: $0, role: .server) })
        state = Mutex(State(connections: ConnectionTable(maxConnections: configuration.maxConnections,
                                                         maxPerAddress: configuration.maxConnectionsPerAddress)))
    }

    /// `configuration.maxConnections`, lowered to what the open-file limit leaves after
    /// `reservedDescriptors` (read at `start()`): past the limit `accept` would fail, and the server
    /// could neither answer nor shed anyone.
    public var effectiveMaxConnections: Int { state.withLock { $0.connections.maxConnections } }

    static func connectionLimit(configured: Int, openFileLimit: UInt64) -> Int {
        let available = openFileLimit > UInt64(Int.max) ? Int.max : Int(openFileLimit) - reservedDescriptors
        return min(configured, max(16, available))
    }

    /// A server answering every request with `handler` (on the concurrency pool).
    public convenience init(configuration: HTTPServerConfiguration = .init(), handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.init(configuration: configuration, delegate: HTTPClosureDelegate(respond: handler))
    }

    // MARK: - Public API

    /// Binds and starts accepting.
    /// - Throws: `NetError` when the address does not resolve, cannot be bound, or TLS files fail to load.
    public func start() throws(NetError) {
        if let tls = configuration.tls, tlsContext.withLock({ $0 }) == nil {
            _ = try TLSContext(configuration: tls, role: .server)  // rethrows the load error
        }
        let address = try SocketAddress.resolve(host: configuration.host, port: configuration.port)
        let group: EventLoopGroup
        if let providedGroup { group = providedGroup } else {
            group = try EventLoopGroup(loopCount: configuration.loopCount, backend: configuration.backend)
        }
        let acceptLoop = group.loops[0]
        let listener: TCPListener
        do throws(NetError) {
            listener = try TCPListener(address: address, backlog: configuration.backlog, loop: acceptLoop) { [weak self] fd, remote in
                self?.accepted(fd: fd, remote: remote, group: group)
            }
            listener.onDescriptorsExhausted = { [weak self] in self?.shedOldestIdle() }
        } catch {
            if providedGroup == nil { group.shutdown() }
            throw error
        }
        let limit = Self.connectionLimit(configured: configuration.maxConnections, openFileLimit: ProcessLimits.openFiles().soft)
        state.withLock {
            $0.group = group
            $0.listener = listener
            $0.started = true
            $0.connections = ConnectionTable(maxConnections: limit, maxPerAddress: configuration.maxConnectionsPerAddress)
        }
        // Registration belongs to the loop thread; wait for it so the port is live on return.
        let registered = Mutex<NetError?>(nil)
        let done = DispatchSemaphore(value: 0)
        acceptLoop.execute {
            do throws(NetError) { try listener.start() } catch { registered.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = registered.withLock({ $0 }) { throw error }
    }

    /// Loads `tls` (a renewed certificate and key) and serves it to every connection accepted from
    /// now on; open connections keep the certificate they were made with. On failure nothing
    /// changes and the error says which file failed.
    /// - Returns: the new context (its `certificateSummary` is what clients now see).
    /// - Throws: `NetError.tls` when a file cannot be loaded or the key does not match, or on a
    ///   server made without TLS (a plain listener does not turn into a TLS one at run time).
    @discardableResult
    public func replaceTLS(with tls: TLSConfiguration) throws(NetError) -> TLSContext {
        guard configuration.tls != nil else { throw .tls("this server was started without TLS") }
        let context = try TLSContext(configuration: tls, role: .server)
        tlsContext.withLock { $0 = context }
        return context
    }

    /// The context new TLS connections use, or nil for a plain server.
    public var currentTLSContext: TLSContext? { tlsContext.withLock { $0 } }

    /// The bound address (after `start()`).
    public var localAddress: SocketAddress? { state.withLock { $0.listener?.localAddress } }

    /// The bound port (after `start()`); the kernel's pick when configured with port 0.
    public var port: UInt16 { localAddress?.port ?? 0 }

    /// `shutdown` has begun. Connections read this when they answer, not only their own flag:
    /// their `beginShutdown` reaches each loop in its own time, and a response a loop sends
    /// before its turn must already be marked as the connection's last.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Open connections (HTTP and WebSocket).
    public var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Open connections in the middle of a request, a response or a WebSocket: none is shed for a
    /// new one. Tests wait on it for the bytes they sent to have been read (a connection is idle
    /// from its accept until then).
    var busyConnectionCount: Int {
        state.withLock { $0.connections.connections.filter { $0.idleSince.load(ordering: .relaxed) == 0 }.count }
    }

    /// Open connections from `address`'s IP (any port).
    public func connectionCount(from address: SocketAddress) -> Int { state.withLock { $0.connections.count(from: address) } }

    /// Stops accepting, lets requests in progress finish for up to `gracePeriod` (idle keep-alive
    /// connections close at once, WebSockets get Close 1001), then drops what is left and, when the
    /// server made its own threads, stops them.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        let (listener, connections, group) = state.withLock { state -> (TCPListener?, [HTTPServerConnection], EventLoopGroup?) in
            if state.stopping { return (nil, [], nil) }
            state.stopping = true
            return (state.listener, state.connections.connections, state.group)
        }
        guard let group else { return }
        if let listener { await onLoop(listener.loop) { listener.close() } }
        for connection in connections {
            connection.streamLoop.execute { connection.beginShutdown() }
        }
        let deadline = ContinuousClock.now + gracePeriod
        while connectionCount > 0, ContinuousClock.now < deadline {
            try? await TimerQueue.shared.sleep(for: .milliseconds(10))
        }
        for connection in state.withLock({ $0.connections.connections }) {
            connection.streamLoop.execute { connection.forceClose() }
        }
        let hardDeadline = ContinuousClock.now + .seconds(1)
        while connectionCount > 0, ContinuousClock.now < hardDeadline {
            try? await TimerQueue.shared.sleep(for: .milliseconds(5))
        }
        if providedGroup == nil { group.shutdown() }
    }

    // MARK: - Internals

    private func accepted(fd: Int32, remote: SocketAddress?, group: EventLoopGroup) {
        let loop = group.next()
        let accept: @Sendable () -> Void = { [self] in
            var session: TLSSession?
            if let tlsContext = tlsContext.withLock({ $0 }) {
                do { session = try TLSSession(context: tlsContext, host: nil) } catch {
                    Sockets.close(fd)
                    return
                }
            }
            let stream = StreamConnection(loop: loop, fd: fd, remoteAddress: remote, tls: session, connecting: false)
            let registered: (HTTPServerConnection, shed: HTTPServerConnection?)? = state.withLock { state in
                guard !state.stopping,
                      case .admit(let sheddingID) = state.connections.decide(from: remote, idleSince: { $0.idleSince.load(ordering: .relaxed) })
                else { return nil }
                let connection = HTTPServerConnection(id: state.nextID, server: self, stream: stream)
                state.nextID += 1
                state.connections.insert(connection, id: connection.id, address: remote)
                let shed = sheddingID.flatMap { state.connections.connection($0) }
                shed?.idleSince.store(0, ordering: .relaxed)  // chosen once: not picked again meanwhile
                return (connection, shed)
            }
            guard let (connection, shed) = registered else {
                Sockets.close(fd)
                return
            }
            if let shed { shed.streamLoop.execute { shed.closeIfIdle() } }
            stream.handler = connection
            // Covers the TLS handshake; a plain connection moves to the idle timeout once active.
            stream.deadline = Monotonic.now() &+ Monotonic.nanoseconds(configuration.headerTimeout)
            stream.start()
        }
        if loop.inEventLoop { accept() } else { loop.execute(accept) }
    }

    func connectionClosed(_ id: Int) {
        _ = state.withLock { $0.connections.remove(id) }
    }

    /// Out of descriptors (accept failed with EMFILE/ENFILE): close the longest-idle connection.
    private func shedOldestIdle() {
        let victim = state.withLock { state -> HTTPServerConnection? in
            let oldest = state.connections.longestIdle { $0.idleSince.load(ordering: .relaxed) }.flatMap { state.connections.connection($0) }
            oldest?.idleSince.store(0, ordering: .relaxed)
            return oldest
        }
        if let victim { victim.streamLoop.execute { victim.closeIfIdle() } }
    }

    private func onLoop(_ loop: EventLoop, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                body()
                continuation.resume()
            }
        }
    }
}
