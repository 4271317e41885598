import Foundation
import RTCNet
import SRTCProtocol
import Synchronization

/// One signaling WebSocket (docs/protocol.md): numbered requests with awaited responses, pushed
/// events, keep-alive pings. A new `SignalClient` is made for every (re)connection; the channel
/// owns the session across them.
package final class SignalClient: Sendable {
    // MARK: - Types

    private struct State {
        var nextId = 1
        var pending: [Int: CheckedContinuation<Response, any Error>] = [:]
        var closeInfo: WebSocketCloseInfo?
        var onEvent: (@Sendable (ServerEvent) -> Void)?
        var onClose: (@Sendable (WebSocketCloseInfo) -> Void)?
        /// Unix seconds of the last request sent (keep-alive pings only when idle).
        var lastSent = Date().timeIntervalSince1970
        var keepAlive: Task<Void, Never>?
    }

    // MARK: - Properties

    private let socket: WebSocket
    private let state = Mutex(State())
    /// How often an idle client pings (docs/protocol.md: every 10 s).
    let pingInterval: Duration

    private init(socket: WebSocket, pingInterval: Duration) {
        self.socket = socket
        self.pingInterval = pingInterval
    }

    // MARK: - Connecting

    /// Opens the WebSocket. Messages are buffered until `start`.
    /// - Parameters:
    ///   - url: the `ws(s)://…/rtc/v1/ws` URL.
    ///   - timeout: limit for TCP, TLS and the upgrade.
    package static func connect(url: String, timeout: Duration = .seconds(10), pingInterval: Duration = .seconds(10)) async throws(SRTCError) -> SignalClient {
        do {
            // WebSocket pings every 5 s: a dead TCP path closes the socket (1006) within 10 s.
            let configuration = WebSocketConfiguration(maxMessageSize: 4 * SignalCodec.defaultMaxMessageBytes,
                                                       closeTimeout: .seconds(2), pingInterval: .seconds(5))
            let socket = try await WebSocketClient.connect(url: url, configuration: configuration, timeout: timeout)
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

    /// Starts delivering events (on the socket's I/O thread, in order) and the keep-alive.
    package func start(onEvent: @escaping @Sendable (ServerEvent) -> Void, onClose: @escaping @Sendable (WebSocketCloseInfo) -> Void) {
        state.withLock {
            $0.onEvent = onEvent
            $0.onClose = onClose
        }
        socket.onMessage { [weak self] message in
            guard let self, case .text(let text) = message else { return }
            self.receive(text)
        }
        socket.onClose { [weak self] info in self?.didClose(info) }
        let keepAlive = Task { [weak self, pingInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pingInterval)
                guard let self, !Task.isCancelled else { return }
                await self.pingIfIdle()
            }
        }
        state.withLock { $0.keepAlive = keepAlive }
    }

    // MARK: - Requests

    /// Sends a request and waits for its response.
    /// - Throws: `.server` when the server answers `ok: false`, `.timeout`, or
    ///   `.connectionFailed` when the socket closes first.
    @discardableResult
    package func request(_ body: ClientRequest.Body, timeout: Duration = .seconds(15)) async throws(SRTCError) -> ResponseData {
        let response: Response
        do {
            response = try await withCheckedThrowingContinuation { continuation in
                let id: Int? = state.withLock { s in
                    guard s.closeInfo == nil else { return nil }
                    let id = s.nextId
                    s.nextId += 1
                    s.pending[id] = continuation
                    s.lastSent = Date().timeIntervalSince1970
                    return id
                }
                guard let id else {
                    continuation.resume(throwing: SRTCError.connectionFailed("signaling connection closed"))
                    return
                }
                socket.send(text: SignalCodec.encode(ClientRequest(id: id, body)))
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.fail(id: id, with: .timeout("no answer to '\(body.typeName)'"))
                }
            }
        } catch let error as SRTCError {
            throw error
        } catch {
            throw .connectionFailed("\(error)")
        }
        switch response.result {
        case .success(let data): return data
        case .failure(let error): throw SRTCError(error)
        }
    }

    /// Sends a request whose answer nobody waits for (its response is dropped on arrival), in
    /// order with everything else sent on this connection.
    package func send(_ body: ClientRequest.Body) {
        let id: Int? = state.withLock { s in
            guard s.closeInfo == nil else { return nil }
            defer { s.nextId += 1 }
            s.lastSent = Date().timeIntervalSince1970
            return s.nextId
        }
        guard let id else { return }
        socket.send(text: SignalCodec.encode(ClientRequest(id: id, body)))
    }

    /// Closes the connection (normal closure); pending requests fail.
    package func close() {
        socket.close(code: .normalClosure, reason: "")
    }

    /// How the connection closed, or nil while open.
    var closeInfo: WebSocketCloseInfo? { state.withLock { $0.closeInfo } }

    // MARK: - Internals

    private func receive(_ text: String) {
        let message: ServerMessage
        do {
            message = try SignalCodec.decodeServerMessage(text)
        } catch {
            return // an unknown event from a newer server is skipped (docs/protocol.md: unknown types are errors, never fatal)
        }
        switch message {
        case .response(let id, let response):
            let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
            continuation?.resume(returning: response)
        case .event(let event):
            state.withLock { $0.onEvent }?(event)
        }
    }

    private func fail(id: Int, with error: SRTCError) {
        let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
        continuation?.resume(throwing: error)
    }

    private func didClose(_ info: WebSocketCloseInfo) {
        let (pending, onClose, keepAlive) = state.withLock { s in
            s.closeInfo = info
            defer { s.pending = [:]; s.onClose = nil; s.onEvent = nil }
            return (s.pending, s.onClose, s.keepAlive)
        }
        keepAlive?.cancel()
        for continuation in pending.values {
            continuation.resume(throwing: SRTCError.connectionFailed("signaling connection closed (\(info))"))
        }
        onClose?(info)
    }

    /// Pings when nothing was sent for a ping interval; a ping without answer closes the socket
    /// so the channel reconnects.
    private func pingIfIdle() async {
        let idle = state.withLock { Date().timeIntervalSince1970 - $0.lastSent }
        let interval = Double(pingInterval.components.seconds) + Double(pingInterval.components.attoseconds) / 1e18
        guard idle >= interval * 0.9, closeInfo == nil else { return }
        do {
            try await request(.ping, timeout: pingInterval)
        } catch .timeout {
            socket.close(code: .goingAway, reason: "ping timeout")
        } catch {
        }
    }
}
