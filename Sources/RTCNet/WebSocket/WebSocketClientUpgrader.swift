/// Runs the client side of the opening handshake (RFC 6455 §4.1) on a fresh stream, then hands
/// the stream to a `WebSocketHandler`. Loop-confined.
// @unchecked Sendable: the parser and completion are used only on its stream's event-loop thread; the rest is `let`.
final class WebSocketClientUpgrader: StreamHandler, @unchecked Sendable {
    typealias Completion = @Sendable (Result<WebSocket, any Error>) -> Void

    private let request: [UInt8]
    private let key: String
    private let offeredProtocols: [String]
    private let configuration: WebSocketConfiguration
    private let handshakeDeadline: UInt64
    private var parser = HTTPResponseParser(requestMethod: "GET", limits: .init(maxBodyBytes: 64 * 1024))
    private var completion: Completion?

    init(url: ParsedURL, headers: HTTPHeaders, subprotocols: [String], configuration: WebSocketConfiguration, deadline: UInt64, completion: @escaping Completion) {
        key = WebSocketHandshake.makeKey()
        offeredProtocols = subprotocols
        self.configuration = configuration
        handshakeDeadline = deadline
        self.completion = completion
        var text = "GET \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !subprotocols.isEmpty { text += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        request = Array(text.utf8)
    }

    // MARK: - StreamHandler

    func streamActive(_ stream: StreamConnection) {
        stream.deadline = handshakeDeadline
        stream.write(request)
    }

    func streamReceived(_ stream: StreamConnection) {
        let response: HTTPResponse
        do {
            guard let parsed = try parser.next(from: &stream.inbound) else { return }
            response = parsed
        } catch {
            fail(stream, WebSocketError.handshakeFailed(status: 0, reason: error.description))
            return
        }
        guard response.status == 101 else {
            let body = String(decoding: response.body.prefix(1024), as: UTF8.self)
            fail(stream, WebSocketError.handshakeFailed(status: response.status, reason: body))
            return
        }
        // §4.1: the server must confirm the upgrade and prove it read our key.
        guard response.headers.contains("Upgrade", token: "websocket"),
              response.headers.contains("Connection", token: "upgrade"),
              response.headers["Sec-WebSocket-Accept"]?.trimmingSpaces == Substring(WebSocketHandshake.acceptValue(forKey: key)) else {
            fail(stream, WebSocketError.handshakeFailed(status: 101, reason: "missing or wrong Sec-WebSocket-Accept / Upgrade"))
            return
        }
        let chosen = response.headers["Sec-WebSocket-Protocol"].map { String($0.trimmingSpaces) }
        if let chosen, !offeredProtocols.contains(chosen) {
            fail(stream, WebSocketError.handshakeFailed(status: 101, reason: "server chose a subprotocol we did not offer: \(chosen)"))
            return
        }
        let handler = WebSocketHandler(role: .client, configuration: configuration)
        let socket = WebSocket(handler: handler, loop: stream.loop, remoteAddress: stream.remoteAddress, upgradeRequest: nil, responseHeaders: response.headers, subprotocol: chosen)
        handler.socket = socket
        let completion = self.completion
        self.completion = nil
        handler.attach(to: stream)
        handler.start()
        completion?(.success(socket))
    }

    func streamReadClosed(_ stream: StreamConnection) {
        if let response = parser.finish(), response.status != 101 {
            fail(stream, WebSocketError.handshakeFailed(status: response.status, reason: String(decoding: response.body.prefix(1024), as: UTF8.self)))
            return
        }
        stream.close(error: .connectionClosed)
    }

    func streamClosed(_ stream: StreamConnection, error: NetError?) {
        let completion = self.completion
        self.completion = nil
        completion?(.failure(error ?? NetError.connectionClosed))
    }

    // MARK: - Internals

    private func fail(_ stream: StreamConnection, _ error: any Error) {
        let completion = self.completion
        self.completion = nil
        stream.close()
        completion?(.failure(error))
    }
}
