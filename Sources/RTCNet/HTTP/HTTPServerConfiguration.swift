import Foundation

/// Where an `HTTPServer` listens, how many threads it uses, and the limits and timeouts that keep
/// one slow or hostile client from holding resources.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind (a numeric IPv4/IPv6 address or a name that resolves to one).
    public var host: String
    /// Port to bind; 0 lets the kernel pick a free one (read it back from `HTTPServer.port`).
    public var port: UInt16
    /// Event-loop threads when the server makes its own group (default: one per core).
    public var loopCount: Int
    /// Readiness backend of the server's own group.
    public var backend: EventLoop.Backend
    /// Length of the kernel's queue of connections not yet accepted.
    public var backlog: Int32
    /// Open connections (HTTP and WebSocket). A new connection past it closes the longest-idle
    /// keep-alive connection (one with no request under way) to make room, or is closed at once
    /// when none is idle. Never more than the descriptor limit allows (see
    /// `HTTPServer.effectiveMaxConnections`).
    public var maxConnections: Int
    /// Open connections from one IP address; 0 for no limit. Past it the address's own
    /// longest-idle connection is closed to make room, or the new one is refused. Behind a reverse
    /// proxy every client shares the proxy's address: raise it or set 0 there.
    public var maxConnectionsPerAddress: Int
    /// Request size limits (414 / 431 / 413).
    public var limits: HTTPRequestParser.Limits
    /// From the first byte of a request to the end of its head; past it the connection is closed.
    public var headerTimeout: Duration
    /// From the end of a head to the end of its body.
    public var bodyTimeout: Duration
    /// How long a keep-alive connection may sit between requests.
    public var idleTimeout: Duration
    /// How long queued response bytes may make no progress (a client that stopped reading).
    public var writeTimeout: Duration
    /// How long a connection half-closed after an error response keeps draining the client's bytes.
    public var lingerTimeout: Duration
    /// Settings of accepted WebSocket connections (an acceptance may override them).
    public var webSocket: WebSocketConfiguration
    /// Serve HTTPS / WSS with this certificate and key; `nil` for plain TCP.
    public var tls: TLSConfiguration?

    /// - Parameters: see the properties of the same names; defaults suit a public server.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        loopCount: Int = ProcessInfo.processInfo.activeProcessorCount,
        backend: EventLoop.Backend = .automatic,
        backlog: Int32 = 1024,
        maxConnections: Int = 10_000,
        maxConnectionsPerAddress: Int = 256,
        limits: HTTPRequestParser.Limits = .init(),
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30),
        lingerTimeout: Duration = .seconds(2),
        webSocket: WebSocketConfiguration = .init(),
        tls: TLSConfiguration? = nil
    ) {
        self.host = host
        self.port = port
        self.loopCount = loopCount
        self.backend = backend
        self.backlog = backlog
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.limits = limits
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.lingerTimeout = lingerTimeout
        self.webSocket = webSocket
        self.tls = tls
    }
}
