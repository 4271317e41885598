import Synchronization

/// The client side of a JSON request/response protocol over one WebSocket, as SRTC's signaling
/// (docs/protocol.md) and SMeeting's meeting protocol (docs/meeting-protocol.md) both are:
/// numbered requests whose responses carry the same id, events pushed without one, and pings
/// while the connection is idle. The protocol's adapter (`SignalClient`, `MeetingClient`) says how
/// to encode a request and what a received text is; this type keeps the table of requests in
/// flight, their timeouts, and fails them all when the socket closes.
package final class WebSocketRequestClient<Response: Sendable, Event: Sendable>: Sendable {
    // MARK: - Types

    /// What one received text message is.
    package enum Incoming: Sendable {
        case response(id: Int, Response)
        case event(Event)
        /// Not understood (a newer peer's message, or garbage): skipped.
        case ignored
    }

    /// Why a request got no response.
    package enum Failure: Error, Sendable, Equatable {
        /// The connection closed first (or was closed already): how, when the peer said.
        case closed(WebSocketCloseInfo?)
        /// No response within the request's timeout.
        case timeout
    }

    private struct Pending {
        let continuation: CheckedContinuation<Result<Response, Failure>, Never>
        /// Runs on the reader thread with the response, before any later message is handled.
        let onResponse: (@Sendable (Response) -> Void)?
        let timeout: Task<Void, Never>
    }

    private struct State {
        var nextId = 1
        var pending: [Int: Pending] = [:]
        var closed = false
        var closeInfo: WebSocketCloseInfo?
        var lastSent = ContinuousClock.now
        var keepAlive: Task<Void, Never>?
    }

    // MARK: - Properties

    private let socket: WebSocket
    private let decode: @Sendable (String) -> Incoming
    private let state = Mutex(State())
    private let onEvent = CallbackSlot<@Sendable (Event) -> Void>()
    private let onClose = CallbackSlot<@Sendable (WebSocketCloseInfo) -> Void>()

    /// - Parameters:
    ///   - socket: an open WebSocket; nothing is read from it before `start`.
    ///   - decode: what a received text is (called on the socket's reader thread).
    package init(socket: WebSocket, decode: @escaping @Sendable (String) -> Incoming) {
        self.socket = socket
        self.decode = decode
    }

    // MARK: - Lifecycle

    /// Starts reading: events go to `onEvent` on the socket's reader thread, in arrival order;
    /// `onClose` runs once when the socket closes (not after `close(notify: false)`).
    package func start(onEvent: @escaping @Sendable (Event) -> Void, onClose: @escaping @Sendable (WebSocketCloseInfo) -> Void) {
        self.onEvent.set(onEvent)
        self.onClose.set(onClose)
        socket.onMessage { [weak self] message in
            guard let self, case .text(let text) = message else { return }
            self.receive(text)
        }
        socket.onClose { [weak self] info in self?.didClose(info, notify: true) }
    }

    /// Sends `ping` whenever nothing was sent for `interval`; a ping that times out closes the
    /// socket (1001, "ping timeout"), so the owner learns the path is dead and reconnects.
    package func keepAlive(every interval: Duration, ping: @escaping @Sendable () async throws(Failure) -> Void) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await TimerQueue.shared.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                let idle = self.state.withLock { $0.closed ? nil : ContinuousClock.now - $0.lastSent }
                guard let idle else { return }
                guard idle >= interval * 0.9 else { continue }
                do throws(Failure) { try await ping() } catch {
                    if error == .timeout { self.socket.close(code: .goingAway, reason: "ping timeout") }
                }
            }
        }
        state.withLock { $0.keepAlive = task }
    }

    /// Closes the socket; requests in flight fail. With `notify: false` (the owner is leaving)
    /// they fail at once and `onClose` does not run.
    package func close(code: WebSocketCloseCode = .normalClosure, reason: String = "", notify: Bool = true) {
        socket.close(code: code, reason: reason)
        if !notify { didClose(nil, notify: false) }
    }

    /// How the connection closed, or nil while it is open.
    package var closeInfo: WebSocketCloseInfo? { state.withLock { $0.closeInfo } }

    // MARK: - Requests

    /// Sends the request `encode(id)` makes and waits for the response with that id.
    /// - Parameter onResponse: applied on the reader thread before any later message is handled
    ///   (so a snapshot in a response lands before the events that follow it).
    package func request(timeout: Duration, onResponse: (@Sendable (Response) -> Void)? = nil,
                         _ encode: (Int) -> String) async throws(Failure) -> Response {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, Failure>, Never>) in
            let id = state.withLock { s -> Int? in
                guard !s.closed else { return nil }
                let id = s.nextId
                s.nextId += 1
                s.lastSent = .now
                let timer = Task { [weak self] in
                    try? await TimerQueue.shared.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    self?.finish(id, .failure(.timeout))
                }
                s.pending[id] = Pending(continuation: continuation, onResponse: onResponse, timeout: timer)
                return id
            }
            guard let id else {
                continuation.resume(returning: .failure(.closed(closeInfo)))
                return
            }
            socket.send(text: encode(id))
        }
        return try result.get()
    }

    /// Sends a request whose response nobody waits for (it is dropped on arrival), in order with
    /// everything else sent on this connection.
    package func send(_ encode: (Int) -> String) {
        let id = state.withLock { s -> Int? in
            guard !s.closed else { return nil }
            defer { s.nextId += 1 }
            s.lastSent = .now
            return s.nextId
        }
        guard let id else { return }
        socket.send(text: encode(id))
    }

    // MARK: - Internals

    private func receive(_ text: String) {
        switch decode(text) {
        case .response(let id, let response):
            guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            pending.timeout.cancel()
            pending.onResponse?(response)
            pending.continuation.resume(returning: .success(response))
        case .event(let event):
            onEvent.function?(event)
        case .ignored:
            break
        }
    }

    private func finish(_ id: Int, _ result: Result<Response, Failure>) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
        pending.timeout.cancel()
        pending.continuation.resume(returning: result)
    }

    private func didClose(_ info: WebSocketCloseInfo?, notify: Bool) {
        let (pending, keepAlive, first) = state.withLock { s -> ([Pending], Task<Void, Never>?, Bool) in
            let first = !s.closed
            s.closed = true
            if s.closeInfo == nil { s.closeInfo = info }
            defer { s.pending = [:] }
            return (Array(s.pending.values), s.keepAlive, first)
        }
        keepAlive?.cancel()
        for p in pending {
            p.timeout.cancel()
            p.continuation.resume(returning: .failure(.closed(info)))
        }
        let handler = onClose.function
        onEvent.set(nil)
        onClose.set(nil)
        if notify, first, let info { handler?(info) }
    }
}
