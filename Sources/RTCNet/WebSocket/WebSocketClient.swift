/// Opens client WebSocket connections (`ws://` and `wss://`) over the reactor.
///
/// ```swift
/// let socket = try await WebSocketClient.connect(url: "wss://rtc.example.com/rtc?token=…")
/// socket.send(text: "{\"type\":\"join\"}")
/// for await message in socket.messages { … }
/// ```
public enum WebSocketClient {
    /// Connects and completes the opening handshake.
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL; its path and query become the request target.
    ///   - headers: extra handshake fields (an `Authorization` header, `Origin`, …).
    ///   - subprotocols: offered in `Sec-WebSocket-Protocol`; the chosen one is `WebSocket.subprotocol`.
    ///   - configuration: message limit, close timeout, keep-alive pings.
    ///   - tls: for `wss://` (system trust store and host-name check by default).
    ///   - timeout: limit for connecting plus the handshake.
    ///   - group: loops to run on.
    /// - Throws: `NetError` for transport failures, `WebSocketError.handshakeFailed` when the server
    ///   refuses (its status and up to 1 KiB of its body are in the error).
    public static func connect(
        url: String,
        headers: HTTPHeaders = HTTPHeaders(),
        subprotocols: [String] = [],
        configuration: WebSocketConfiguration = .init(maxMessageSize: 16 << 20),
        tls: TLSConfiguration = .clientDefault,
        timeout: Duration = .seconds(10),
        group: EventLoopGroup = .shared
    ) async throws -> WebSocket {
        let parsed = try ParsedURL(url, allowedSchemes: ["ws", "wss"])
        let address = try await ClientBootstrap.resolve(host: parsed.host, port: parsed.port)
        var session: TLSSession?
        if parsed.isSecure {
            session = try TLSSession(context: try TLSContext.shared(for: tls, role: .client), host: parsed.host)
        }
        let deadline = Monotonic.now() &+ Monotonic.nanoseconds(timeout)
        let result: Result<WebSocket, any Error> = await withCheckedContinuation { continuation in
            let upgrader = WebSocketClientUpgrader(url: parsed, headers: headers, subprotocols: subprotocols, configuration: configuration, deadline: deadline) {
                continuation.resume(returning: $0)
            }
            ClientBootstrap.connect(to: address, on: group.next(), tls: session, deadline: deadline, handler: upgrader)
        }
        return try result.get()
    }
}
