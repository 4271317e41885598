/// A WebSocket close status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent on the wire.
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// The code `rawValue` (application codes are 3000–4999).
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: an endpoint is going away (server shutdown, page navigation).
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// Reported locally when a Close frame carried no code; never sent (§7.4.1).
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// Reported locally when the connection dropped without a Close frame; never sent.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: data inconsistent with its type (text that is not UTF-8).
    public static let invalidPayload = WebSocketCloseCode(1007)
    /// 1008: a message violates the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a message is too big to process.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client needed an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = WebSocketCloseCode(1011)

    /// `true` when the code may appear in a Close frame: 1000–1003, 1007–1014 and 3000–4999
    /// (§7.4.1–7.4.2; 1012–1014 were registered with IANA later).
    public var isAllowedOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }
}

/// How a WebSocket connection ended.
public struct WebSocketCloseInfo: Sendable, Equatable, CustomStringConvertible {
    /// The code the peer sent (or we sent, when we failed the connection), 1005 for a Close frame
    /// without a code and 1006 when the connection dropped without any Close frame.
    public var code: WebSocketCloseCode
    /// Text from the Close frame (UTF-8, at most 123 bytes on the wire).
    public var reason: String

    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason.isEmpty ? "\(code)" : "\(code) \(reason)" }
}
