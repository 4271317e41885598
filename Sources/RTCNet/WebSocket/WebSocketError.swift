/// Why a WebSocket connection failed; `closeCode` is the status sent in our Close frame.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame broke RFC 6455 framing: reserved bits or opcodes, bad masking, a fragmented or
    /// oversized control frame, a stray continuation, a 64-bit length with its top bit set (1002).
    case protocolViolation(String)
    /// A text message or close reason is not valid UTF-8 (1007, RFC 6455 §8.1).
    case invalidUTF8
    /// A message is larger than the configured maximum (1009).
    case messageTooBig(limit: Int)
    /// A fragmented message was not completed within the configured time (1008): its fragments
    /// would otherwise stay buffered for as long as the peer keeps the connection alive.
    case messageTimedOut(seconds: Double)
    /// The opening handshake failed: an HTTP status other than 101, or a bad accept value.
    case handshakeFailed(status: Int, reason: String)
    /// The connection is closed; nothing can be sent.
    case closed

    /// The close status that reports this error to the peer.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .protocolViolation, .handshakeFailed: return .protocolError
        case .invalidUTF8: return .invalidPayload
        case .messageTooBig: return .messageTooBig
        case .messageTimedOut: return .policyViolation
        case .closed: return .normalClosure
        }
    }

    public var description: String {
        switch self {
        case .protocolViolation(let why): return "WebSocket protocol violation: \(why)"
        case .invalidUTF8: return "WebSocket text is not valid UTF-8"
        case .messageTooBig(let limit): return "WebSocket message larger than \(limit) bytes"
        case .messageTimedOut(let seconds): return "WebSocket message not completed within \(seconds) s"
        case .handshakeFailed(let status, let reason): return "WebSocket handshake failed (\(status)): \(reason)"
        case .closed: return "WebSocket closed"
        }
    }
}
