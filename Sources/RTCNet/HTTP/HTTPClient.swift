import Synchronization

/// An async HTTP/1.1 client over the reactor: `http://` and `https://` (OpenSSL), Content-Length,
/// chunked and read-until-close bodies, timeouts, and reuse of idle keep-alive connections.
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.get("https://example.com/")
/// ```
public final class HTTPClient: Sendable {
    /// Client settings.
    public struct Configuration: Sendable {
        /// Limit for connecting (and the TLS handshake).
        public var connectTimeout: Duration
        /// Limit for a whole request, from sending to the last body byte.
        public var timeout: Duration
        /// TLS settings for `https://` (system trust store and host-name check by default).
        public var tls: TLSConfiguration
        /// Response size limits.
        public var limits: HTTPResponseParser.Limits
        /// Keep connections open between requests and reuse them.
        public var keepAlive: Bool
        /// Idle connections kept per host and port.
        public var maxIdleConnectionsPerHost: Int
        /// How long an idle pooled connection is kept.
        public var idleTimeout: Duration

        /// - Parameters: see the properties of the same names.
        public init(connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(30), tls: TLSConfiguration = .clientDefault, limits: HTTPResponseParser.Limits = .init(), keepAlive: Bool = true, maxIdleConnectionsPerHost: Int = 8, idleTimeout: Duration = .seconds(30)) {
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.tls = tls
            self.limits = limits
            self.keepAlive = keepAlive
            self.maxIdleConnectionsPerHost = maxIdleConnectionsPerHost
            self.idleTimeout = idleTimeout
        }
    }

    /// The settings given at creation.
    public let configuration: Configuration
    private let group: EventLoopGroup
    private let idle = Mutex<[String: [HTTPClientConnection]]>([:])

    /// - Parameters:
    ///   - configuration: timeouts, TLS and pooling.
    ///   - group: loops to run on (the shared client group by default).
    public init(configuration: Configuration = .init(), group: EventLoopGroup = .shared) {
        self.configuration = configuration
        self.group = group
    }

    // MARK: - Public API

    /// Sends a request and returns the whole response.
    /// - Parameters:
    ///   - method: the method token.
    ///   - url: `http://` or `https://` URL.
    ///   - headers: extra fields (`Host` and `Content-Length` are set by the client).
    ///   - body: request body, sent with `Content-Length`.
    ///   - timeout: overrides `configuration.timeout` for this request.
    /// - Throws: `NetError` (`.timeout`, `.connectionClosed`, `.tls`, `.protocolViolation`, …).
    public func execute(method: String = "GET", url: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], timeout: Duration? = nil) async throws(NetError) -> HTTPResponse {
        let parsed = try ParsedURL(url, allowedSchemes: ["http", "https"])
        let bytes = Self.serialize(method: method, url: parsed, headers: headers, body: body, keepAlive: configuration.keepAlive)
        let deadline = Monotonic.now() &+ Monotonic.nanoseconds(timeout ?? configuration.timeout)
        let key = "\(parsed.scheme)://\(parsed.hostHeader)"
        // A pooled connection the server closed meanwhile fails before any byte arrives: retry once on a new one.
        if let pooled = takeIdle(key) {
            let (result, receivedAnything) = await perform(bytes, method: method, on: pooled, deadline: deadline)
            if case .failure(.connectionClosed) = result, !receivedAnything {} else { return try result.get() }
        }
        let connection = try await open(parsed, key: key, deadline: deadline)
        return try await perform(bytes, method: method, on: connection, deadline: deadline).0.get()
    }

    /// `GET url`.
    public func get(_ url: String, headers: HTTPHeaders = HTTPHeaders(), timeout: Duration? = nil) async throws(NetError) -> HTTPResponse {
        try await execute(method: "GET", url: url, headers: headers, timeout: timeout)
    }

    /// `POST url` with `body`.
    public func post(_ url: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8], timeout: Duration? = nil) async throws(NetError) -> HTTPResponse {
        try await execute(method: "POST", url: url, headers: headers, body: body, timeout: timeout)
    }

    /// Closes every idle pooled connection.
    public func closeIdleConnections() {
        let all = idle.withLock { pool -> [HTTPClientConnection] in
            let all = pool.values.flatMap { $0 }
            pool.removeAll()
            return all
        }
        for connection in all { connection.loop.execute { connection.stream?.close() } }
    }

    // MARK: - Pool (any thread)

    private func takeIdle(_ key: String) -> HTTPClientConnection? {
        idle.withLock { $0[key]?.popLast() }
    }

    /// Parks a connection after a reusable response; `false` when the pool is full or disabled.
    func returnToPool(_ connection: HTTPClientConnection) -> Bool {
        guard configuration.keepAlive else { return false }
        return idle.withLock { pool in
            var list = pool[connection.key] ?? []
            guard list.count < configuration.maxIdleConnectionsPerHost else { return false }
            list.append(connection)
            pool[connection.key] = list
            return true
        }
    }

    func remove(_ connection: HTTPClientConnection) {
        idle.withLock { pool in pool[connection.key]?.removeAll { $0 === connection } }
    }

    // MARK: - Internals

    private func perform(_ bytes: [UInt8], method: String, on connection: HTTPClientConnection, deadline: UInt64) async -> (Result<HTTPResponse, NetError>, Bool) {
        await withCheckedContinuation { continuation in
            connection.loop.execute {
                connection.perform(bytes, method: method, deadline: deadline) { result, received in
                    continuation.resume(returning: (result, received))
                }
            }
        }
    }

    private func open(_ url: ParsedURL, key: String, deadline: UInt64) async throws(NetError) -> HTTPClientConnection {
        let address = try await ClientBootstrap.resolve(host: url.host, port: url.port)
        var session: TLSSession?
        if url.isSecure { session = try TLSSession(context: try TLSContext.shared(for: configuration.tls, role: .client), host: url.host) }
        let loop = group.next()
        let connection = HTTPClientConnection(key: key, loop: loop, pool: self, limits: configuration.limits, idleTimeout: configuration.idleTimeout)
        let connectDeadline = min(deadline, Monotonic.now() &+ Monotonic.nanoseconds(configuration.connectTimeout))
        ClientBootstrap.connect(to: address, on: loop, tls: session, deadline: connectDeadline, handler: connection)
        return connection
    }

    static func serialize(method: String, url: ParsedURL, headers: HTTPHeaders, body: [UInt8], keepAlive: Bool) -> [UInt8] {
        var text = "\(method) \(url.target) HTTP/1.1\r\n"
        if headers["Host"] == nil { text += "Host: \(url.hostHeader)\r\n" }
        for (name, value) in headers {
            if HTTPHeaders.equalsIgnoringCase(name, "Content-Length") || HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding") { continue }
            text += "\(name): \(value)\r\n"
        }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { text += "Content-Length: \(body.count)\r\n" }
        if !keepAlive, headers["Connection"] == nil { text += "Connection: close\r\n" }
        text += "\r\n"
        var out = Array(text.utf8)
        out.append(contentsOf: body)
        return out
    }
}
