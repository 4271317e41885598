/// A WebSocket close status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let normalClosure = WebSocketCloseCode(1000)
    public static let goingAway = WebSocketCloseCode(1001)
    public static let protocolError = WebSocketCloseCode(1002)
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// Reported locally when a Close frame carried no code; never sent (§7.4.1).
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// Reported locally when the connection dropped without a Close frame; never sent.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    public static let invalidPayload = WebSocketCloseCode(1007)
    public static let policyViolation = WebSocketCloseCode(1008)
    public static let messageTooBig = WebSocketCloseCode(1009)
    public static let mandatoryExtension = WebSocketCloseCode(1010)
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
    public var reason: String

    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason.isEmpty ? "\(code)" : "\(code) \(reason)" }
}
