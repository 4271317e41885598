import RTCNet

/// The HTTP port's TLS and limits (docs/deploy.md, "HTTPS without a proxy"; README's flags
/// table), read by `ServerApp` when it starts the HTTP server.
public struct HTTPSettings: Sendable, Equatable {
    /// PEM certificate chain (leaf first) and private key: the HTTP port then serves HTTPS and WSS
    /// only (`--tls-cert` / `SRTC_TLS_CERT`, `--tls-key` / `SRTC_TLS_KEY`); both or neither.
    /// `SIGHUP` reads both files again (docs/deploy.md, "HTTPS without a proxy").
    public var tlsCert: String?
    public var tlsKey: String?
    /// A plain-HTTP port that answers every request with 308 to the HTTPS port
    /// (`--http-redirect-port`, `SRTC_HTTP_REDIRECT_PORT`); only with TLS on; 0 picks a free port.
    public var redirectPort: UInt16?
    /// Largest accepted request body in bytes (`--max-body-bytes`, `SRTC_MAX_BODY_BYTES`).
    public var maxBodyBytes: Int = 1 << 20
    /// Open HTTP and WebSocket connections (`--max-connections`); never more than the descriptor
    /// limit minus `HTTPServer.reservedDescriptors`.
    public var maxConnections: Int = 10_000
    /// Open connections from one IP address; 0: no limit (`--max-connections-per-address`).
    public var maxConnectionsPerAddress: Int = 256
    /// Seconds from a request's first byte to the end of its head (`--header-timeout-seconds`).
    public var headerTimeoutSeconds: Int = 10
    /// Seconds a connection may sit without a request (`--idle-timeout-seconds`).
    public var idleTimeoutSeconds: Int = 60
    /// Longest request line, head and number of header fields (`--max-request-line-bytes`,
    /// `--max-header-bytes`, `--max-header-count`): 414 / 431 past them.
    public var maxRequestLineBytes: Int = 8192
    public var maxHeaderBytes: Int = 16384
    public var maxHeaderCount: Int = 100
    /// Number of HTTP event-loop threads; 0 means one per core (`--http-threads`, `SRTC_HTTP_THREADS`).
    public var threads: Int = 0

    public init() {}

    /// The HTTP port's TLS settings, when `tlsCert` and `tlsKey` are set.
    public var tls: TLSConfiguration? {
        guard let tlsCert, let tlsKey else { return nil }
        return .server(certificateChainFile: tlsCert, privateKeyFile: tlsKey)
    }

    /// `https` with TLS on, else `http`: the scheme of every URL the server gives for itself.
    public var scheme: String { tls == nil ? "http" : "https" }
}
