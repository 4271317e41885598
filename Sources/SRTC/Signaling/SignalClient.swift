import Foundation
import RTCNet
import SRTCProtocol

/// One signaling WebSocket (docs/protocol.md): numbered requests with awaited responses, pushed
/// events, keep-alive pings, on RTCNet's `WebSocketRequestClient` (shared with SMeeting's
/// `MeetingClient`). A new `SignalClient` is made for every (re)connection; the channel owns the
/// session across them.
package final class SignalClient: Sendable {
    private let session: WebSocketRequestClient<Response, ServerEvent>
    /// How often an idle client pings (docs/protocol.md: every 10 s).
    let pingInterval: Duration
    /// The server's address (the channel watches the local address toward it: `NetworkPathWatcher`).
    let remoteAddress: SocketAddress?

    private init(socket: WebSocket, pingInterval: Duration) {
        remoteAddress = socket.remoteAddress
        session = WebSocketRequestClient(socket: socket) { text in
            // An unknown event from a newer server is skipped (docs/protocol.md: unknown types are
            // errors, never fatal).
            switch try? SignalCodec.decodeServerMessage(text) {
            case .response(let id, let response)?: return .response(id: id, response)
            case .event(let event)?: return .event(event)
            case nil: return .ignored
            }
        }
        self.pingInterval = pingInterval
    }

    // MARK: - Connecting

    /// Opens the WebSocket. Messages are buffered until `start`.
    /// - Parameters:
    ///   - url: the `ws(s)://…/rtc/v1/ws` URL.
    ///   - tls: how a `wss://` server is verified (the engine's `trustedCAFile`, else the system store).
    ///   - timeout: limit for TCP, TLS and the upgrade.
    package static func connect(url: String, tls: TLSConfiguration = .clientDefault, timeout: Duration = .seconds(10),
                                pingInterval: Duration = .seconds(10)) async throws(SRTCError) -> SignalClient {
        do {
            // WebSocket pings every 5 s: a dead TCP path closes the socket (1006) within 10 s.
            let configuration = WebSocketConfiguration(maxMessageSize: 4 * SignalCodec.defaultMaxMessageBytes,
                                                       closeTimeout: .seconds(2), pingInterval: .seconds(5))
            let socket = try await WebSocketClient.connect(url: url, configuration: configuration, tls: tls, timeout: timeout)
            return SignalClient(socket: socket, pingInterval: pingInterval)
        } catch let error as WebSocketError {
            if case .handshakeFailed(let status, let body) = error {
                throw Self.handshakeError(status: status, body: body)
            }
            throw .connectionFailed(error.description)
        } catch {
            throw .connectionFailed("\(error)")
        }
    }

    /// A refused upgrade carries the server API's JSON error body (401 for a bad query token).
    private static func handshakeError(status: Int, body: String) -> SRTCError {
        struct Body: Decodable { var code: Int; var message: String }
        if let json = body.firstIndex(of: "{"),
           let decoded = try? JSONDecoder().decode(Body.self, from: Data(body[json...].utf8)) {
            return .server(code: decoded.code, message: decoded.message)
        }
        return .connectionFailed("HTTP \(status): \(body)")
    }

    /// Starts delivering events (on the socket's I/O thread, in order) and the keep-alive: a ping
    /// when idle for `pingInterval`; a ping without answer closes the socket so the channel reconnects.
    package func start(onEvent: @escaping @Sendable (ServerEvent) -> Void, onClose: @escaping @Sendable (WebSocketCloseInfo) -> Void) {
        session.start(onEvent: onEvent, onClose: onClose)
        session.keepAlive(every: pingInterval) { [weak self, pingInterval] () throws(WebSocketRequestClient<Response, ServerEvent>.Failure) in
            guard let self else { return }
            _ = try await self.session.request(timeout: pingInterval) { SignalCodec.encode(ClientRequest(id: $0, .ping)) }
        }
    }

    // MARK: - Requests

    /// Sends a request and waits for its response.
    /// - Throws: `.server` when the server answers `ok: false`, `.timeout`, or
    ///   `.connectionFailed` when the socket closes first.
    @discardableResult
    package func request(_ body: ClientRequest.Body, timeout: Duration = .seconds(15)) async throws(SRTCError) -> ResponseData {
        let response: Response
        do throws(WebSocketRequestClient<Response, ServerEvent>.Failure) {
            response = try await session.request(timeout: timeout) { SignalCodec.encode(ClientRequest(id: $0, body)) }
        } catch {
            switch error {
            case .timeout: throw .timeout("no answer to '\(body.typeName)'")
            case .closed(let info): throw .connectionFailed("signaling connection closed" + (info.map { " (\($0))" } ?? ""))
            }
        }
        switch response.result {
        case .success(let data): return data
        case .failure(let error): throw SRTCError(error)
        }
    }

    /// Sends a request whose answer nobody waits for (its response is dropped on arrival), in
    /// order with everything else sent on this connection.
    package func send(_ body: ClientRequest.Body) {
        session.send { SignalCodec.encode(ClientRequest(id: $0, body)) }
    }

    /// Closes the connection (normal closure); pending requests fail.
    package func close() {
        session.close()
    }

    /// How the connection closed, or nil while open.
    var closeInfo: WebSocketCloseInfo? { session.closeInfo }
}
