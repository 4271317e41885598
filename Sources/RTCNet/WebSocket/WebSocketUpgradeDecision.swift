/// A server's answer to a WebSocket opening handshake.
public enum WebSocketUpgradeDecision: Sendable {
    /// Refuse with an ordinary HTTP response (401, 403, 404 …).
    case reject(HTTPResponse)
    /// Switch protocols.
    case accept(WebSocketAcceptance)

    /// Accepts the upgrade; `onOpen` receives the connection on its I/O thread before any frame is
    /// read, so callbacks installed there miss nothing (messages are buffered otherwise).
    public static func accept(
        headers: HTTPHeaders = HTTPHeaders(),
        subprotocol: String? = nil,
        configuration: WebSocketConfiguration? = nil,
        onOpen: @escaping @Sendable (WebSocket) -> Void
    ) -> WebSocketUpgradeDecision {
        .accept(WebSocketAcceptance(headers: headers, subprotocol: subprotocol, configuration: configuration, onOpen: onOpen))
    }
}

/// How an accepted upgrade proceeds.
public struct WebSocketAcceptance: Sendable {
    /// Extra fields for the 101 response.
    public var headers: HTTPHeaders
    /// The subprotocol to confirm in `Sec-WebSocket-Protocol`, if the client offered one.
    public var subprotocol: String?
    /// Overrides the server's WebSocket settings for this connection.
    public var configuration: WebSocketConfiguration?
    /// Receives the open connection.
    public var onOpen: @Sendable (WebSocket) -> Void

    /// - Parameters: see the properties of the same names.
    public init(headers: HTTPHeaders = HTTPHeaders(), subprotocol: String? = nil, configuration: WebSocketConfiguration? = nil, onOpen: @escaping @Sendable (WebSocket) -> Void) {
        self.headers = headers
        self.subprotocol = subprotocol
        self.configuration = configuration
        self.onOpen = onOpen
    }
}
