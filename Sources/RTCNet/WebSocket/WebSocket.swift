import Synchronization

/// One WebSocket connection, server or client side (RFC 6455).
///
/// Sending is thread-safe and never blocks: frames are queued on the connection's I/O thread.
/// Incoming messages arrive either through `messages` (an `AsyncStream`) or through a callback set
/// with `onMessage(_:)`; until one is chosen they are buffered, so nothing is lost between the
/// upgrade and the moment the owner starts listening.
public final class WebSocket: Sendable {
    // MARK: - Types

    private enum Sink {
        /// No consumer yet: messages wait in `State.pending`.
        case buffering
        case stream(AsyncStream<WebSocketMessage>.Continuation)
        case callback(@Sendable (WebSocketMessage) -> Void)
    }

    private struct State {
        var sink: Sink = .buffering
        var pending: [WebSocketMessage] = []
        var stream: AsyncStream<WebSocketMessage>?
        var closeInfo: WebSocketCloseInfo?
        var closeWaiters: [CheckedContinuation<WebSocketCloseInfo, Never>] = []
        var closeCallbacks: [@Sendable (WebSocketCloseInfo) -> Void] = []
    }

    // MARK: - Properties

    /// The peer's address.
    public let remoteAddress: SocketAddress?
    /// Server side: the client's opening handshake (path, query, headers such as a token).
    public let upgradeRequest: HTTPRequest?
    /// Client side: the headers of the server's 101 response.
    public let responseHeaders: HTTPHeaders
    /// The subprotocol both sides agreed on, if any.
    public let subprotocol: String?
    let loop: EventLoop
    private let handler: WebSocketHandler
    private let state = Mutex(State())

    init(handler: WebSocketHandler, loop: EventLoop, remoteAddress: SocketAddress?, upgradeRequest: HTTPRequest?, responseHeaders: HTTPHeaders, subprotocol: String?) {
        self.handler = handler
        self.loop = loop
        self.remoteAddress = remoteAddress
        self.upgradeRequest = upgradeRequest
        self.responseHeaders = responseHeaders
        self.subprotocol = subprotocol
    }

    // MARK: - Sending

    /// Sends a text message.
    public func send(text: String) {
        send(.text(text))
    }

    /// Sends a binary message.
    public func send(binary: [UInt8]) {
        send(.binary(binary))
    }

    /// Sends a message; dropped silently once the connection is closing.
    public func send(_ message: WebSocketMessage) {
        let handler = self.handler
        onLoop {
            switch message {
            case .text(let text):
                var text = text
                text.withUTF8 { handler.send(.text, UnsafeRawBufferPointer($0)) }
            case .binary(let bytes):
                handler.send(.binary, bytes)
            }
        }
    }

    /// Sends a ping (at most 125 bytes of payload; longer payloads are cut).
    public func ping(_ payload: [UInt8] = []) {
        let handler = self.handler
        let body = Array(payload.prefix(125))
        onLoop { handler.send(.ping, body) }
    }

    /// Starts the closing handshake. Codes that may not be sent (1005, 1006, …) are sent as 1000.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let handler = self.handler
        onLoop { handler.close(code: code, reason: reason) }
    }

    // MARK: - Receiving

    /// Incoming messages, in order; finishes when the connection closes. Use one consumer.
    public var messages: AsyncStream<WebSocketMessage> {
        state.withLock { state in
            if let existing = state.stream { return existing }
            let (stream, continuation) = AsyncStream<WebSocketMessage>.makeStream()
            if case .buffering = state.sink {
                for message in state.pending { continuation.yield(message) }
                state.pending = []
                if state.closeInfo != nil { continuation.finish() } else { state.sink = .stream(continuation) }
            } else {
                continuation.finish()
            }
            state.stream = stream
            return stream
        }
    }

    /// Delivers every message to `handler` on the connection's I/O thread (no Task hop); buffered
    /// messages are delivered first, on the caller's thread. Replaces the `messages` stream.
    public func onMessage(_ handler: @escaping @Sendable (WebSocketMessage) -> Void) {
        let pending: [WebSocketMessage] = state.withLock { state in
            let pending = state.pending
            state.pending = []
            if case .stream(let continuation) = state.sink { continuation.finish() }
            if state.closeInfo == nil { state.sink = .callback(handler) }
            return pending
        }
        for message in pending { handler(message) }
    }

    /// Calls `handler` once when the connection has closed (at once if it already has).
    public func onClose(_ handler: @escaping @Sendable (WebSocketCloseInfo) -> Void) {
        let closed: WebSocketCloseInfo? = state.withLock { state in
            if let info = state.closeInfo { return info }
            state.closeCallbacks.append(handler)
            return nil
        }
        if let closed { handler(closed) }
    }

    /// How the connection closed, or `nil` while it is open.
    public var closeInfo: WebSocketCloseInfo? { state.withLock { $0.closeInfo } }

    /// Waits until the connection has closed and returns how.
    public func closed() async -> WebSocketCloseInfo {
        await withCheckedContinuation { continuation in
            let info: WebSocketCloseInfo? = state.withLock { state in
                if let info = state.closeInfo { return info }
                state.closeWaiters.append(continuation)
                return nil
            }
            if let info { continuation.resume(returning: info) }
        }
    }

    // MARK: - Internals (loop thread)

    func deliver(_ message: WebSocketMessage) {
        let callback: (@Sendable (WebSocketMessage) -> Void)? = state.withLock { state in
            switch state.sink {
            case .buffering:
                state.pending.append(message)
                return nil
            case .stream(let continuation):
                continuation.yield(message)
                return nil
            case .callback(let callback):
                return callback
            }
        }
        callback?(message)
    }

    func didClose(_ info: WebSocketCloseInfo) {
        let (waiters, callbacks) = state.withLock { state -> ([CheckedContinuation<WebSocketCloseInfo, Never>], [@Sendable (WebSocketCloseInfo) -> Void]) in
            guard state.closeInfo == nil else { return ([], []) }
            state.closeInfo = info
            if case .stream(let continuation) = state.sink { continuation.finish() }
            let result = (state.closeWaiters, state.closeCallbacks)
            state.closeWaiters = []
            state.closeCallbacks = []
            return result
        }
        for waiter in waiters { waiter.resume(returning: info) }
        for callback in callbacks { callback(info) }
    }

    private func onLoop(_ body: @escaping @Sendable () -> Void) {
        if loop.inEventLoop { body() } else { loop.execute(body) }
    }
}
