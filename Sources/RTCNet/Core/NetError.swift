/// Errors of the networking layer.
public enum NetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed; `errno` says why.
    case system(call: String, errno: Int32)
    /// A host name did not resolve to any address.
    case resolveFailed(String)
    /// A URL could not be parsed or has an unsupported scheme.
    case invalidURL(String)
    /// The peer closed the connection.
    case connectionClosed
    /// An operation did not finish in time.
    case timeout
    /// Bytes from the peer broke the protocol (HTTP or WebSocket); the text says how.
    case protocolViolation(String)
    /// A message or header exceeded a configured limit.
    case limitExceeded(String)
    /// TLS setup or handshake failed; the text carries OpenSSL's reason.
    case tls(String)

    public var description: String {
        switch self {
        case .system(let call, let errno): return "\(call) failed (errno \(errno))"
        case .resolveFailed(let host): return "could not resolve \(host)"
        case .invalidURL(let url): return "invalid URL: \(url)"
        case .connectionClosed: return "connection closed"
        case .timeout: return "timed out"
        case .protocolViolation(let why): return "protocol violation: \(why)"
        case .limitExceeded(let what): return "limit exceeded: \(what)"
        case .tls(let why): return "TLS: \(why)"
        }
    }
}
