import Foundation
import RTCNet
import SMeetingProtocol
import Synchronization

/// The meeting WebSocket (docs/meeting-protocol.md): numbered requests with awaited responses,
/// pushed events delivered in arrival order on the socket's thread, keep-alive pings.
final class MeetingClient: Sendable {
    private struct Pending {
        let continuation: CheckedContinuation<String, any Error>
        /// Runs on the reader thread with a successful response, before any later message.
        let onResponse: (@Sendable (String) -> Void)?
    }

    private struct State {
        var nextId = 1
        var pending: [Int: Pending] = [:]
        var closed = false
        var onEvent: (@Sendable (MeetingEventType, String) -> Void)?
        var onClose: (@Sendable () -> Void)?
        var keepAlive: Task<Void, Never>?
    }

    private let socket: WebSocket
    private let state = Mutex(State())

    private init(socket: WebSocket) { self.socket = socket }

    /// The meeting WebSocket URL of a server base URL (`http://host:7880` → `ws://host:7880/stm/v1/ws`);
    /// a `ws(s)://` URL with a path is used as given.
    static func webSocketURL(for url: String) throws(SMeetingError) -> String {
        var base = url.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard let schemeEnd = base.range(of: "://"), !base[schemeEnd.upperBound...].isEmpty else { throw .internalError("invalid URL \(url)") }
        let scheme = base[..<schemeEnd.lowerBound].lowercased()
        let rest = base[schemeEnd.upperBound...]
        switch scheme {
        case "ws", "wss": return rest.contains("/") ? base : base + "/stm/v1/ws"
        case "http": return "ws://" + rest + "/stm/v1/ws"
        case "https": return "wss://" + rest + "/stm/v1/ws"
        default: throw .internalError("invalid URL \(url)")
        }
    }

    static func connect(url: String) async throws(SMeetingError) -> MeetingClient {
        do {
            let configuration = WebSocketConfiguration(maxMessageSize: 4 * MeetingCodec.maxMessageBytes, closeTimeout: .seconds(2),
                                                       pingInterval: .seconds(5))
            return MeetingClient(socket: try await WebSocketClient.connect(url: url, configuration: configuration, timeout: .seconds(10)))
        } catch {
            throw .internalError("cannot connect to \(url): \(error)")
        }
    }

    /// Starts delivering events and watching the socket.
    func start(onEvent: @escaping @Sendable (MeetingEventType, String) -> Void, onClose: @escaping @Sendable () -> Void) {
        state.withLock {
            $0.onEvent = onEvent
            $0.onClose = onClose
        }
        socket.onMessage { [weak self] message in
            guard let self, case .text(let text) = message else { return }
            self.receive(text)
        }
        socket.onClose { [weak self] _ in self?.didClose() }
        let keepAlive = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(10))
                guard let self, !Task.isCancelled else { return }
                _ = try? await self.call(.ping, EmptyPayload(), PongResp.self)
            }
        }
        state.withLock { $0.keepAlive = keepAlive }
    }

    /// Sends a request and decodes the answer's `data` as `R`.
    /// - Parameter onResponse: applied on the reader thread before later messages are handled
    ///   (so a snapshot lands before the events that follow it).
    func call<T: Encodable & Sendable, R: Decodable & Sendable>(_ type: MeetingRequestType, _ data: T, _ result: R.Type,
                                                      timeout: Duration = .seconds(15),
                                                      onResponse: (@Sendable (R) -> Void)? = nil) async throws(SMeetingError) -> R {
        var hook: (@Sendable (String) -> Void)?
        if let onResponse {
            hook = { @Sendable (text: String) -> Void in
                guard let value = Self.decodeData(R.self, text) else { return }
                onResponse(value)
            }
        }
        let message: @Sendable (Int) -> String = { id in MeetingCodec.request(id: id, type: type, data) }
        let finalHook = hook
        let text: String
        do {
            text = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                enqueue(continuation, hook: finalHook, message: message, name: type.rawValue, timeout: timeout)
            }
        } catch let error as SMeetingError {
            throw error
        } catch {
            throw .internalError("\(error)")
        }
        let head: MeetingCodec.Head
        do { head = try MeetingCodec.head(of: text) } catch { throw .internalError("bad answer: \(error.message)") }
        if head.ok != true { throw SMeetingError(head.error ?? MeetingErrorBody(.internalError, "refused")) }
        do { return try MeetingCodec.payload(R.self, from: text) } catch { throw .internalError("bad answer to \(type.rawValue): \(error.message)") }
    }

    /// Closes the socket; pending requests fail.
    func close() {
        socket.close(code: .normalClosure, reason: "logout")
        didClose(notify: false)
    }

    // MARK: - Internals

    private static func decodeData<R: Decodable>(_ type: R.Type, _ text: String) -> R? {
        do { return try MeetingCodec.payload(R.self, from: text) } catch { return nil }
    }

    private func enqueue(_ continuation: CheckedContinuation<String, any Error>, hook: (@Sendable (String) -> Void)?,
                         message: (Int) -> String, name: String, timeout: Duration) {
        let id: Int? = state.withLock { s in
            guard !s.closed else { return nil }
            let id = s.nextId
            s.nextId += 1
            s.pending[id] = Pending(continuation: continuation, onResponse: hook)
            return id
        }
        guard let id else {
            continuation.resume(throwing: SMeetingError.internalError("meeting connection closed"))
            return
        }
        socket.send(text: message(id))
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.fail(id: id, .internalError("no answer to \(name)"))
        }
    }

    private func receive(_ text: String) {
        guard let head = try? MeetingCodec.head(of: text) else { return }
        if let id = head.id {
            let pending = state.withLock { $0.pending.removeValue(forKey: id) }
            if head.ok == true { pending?.onResponse?(text) }
            pending?.continuation.resume(returning: text)
        } else if let name = head.type, let type = MeetingEventType(rawValue: name) {
            state.withLock { $0.onEvent }?(type, text)
        }
    }

    private func fail(id: Int, _ error: SMeetingError) {
        state.withLock { $0.pending.removeValue(forKey: id) }?.continuation.resume(throwing: error)
    }

    private func didClose(notify: Bool = true) {
        let (pending, onClose, keepAlive) = state.withLock { s -> ([Pending], (@Sendable () -> Void)?, Task<Void, Never>?) in
            guard !s.closed else { return ([], nil, nil) }
            s.closed = true
            defer { s.pending = [:]; s.onClose = nil; s.onEvent = nil }
            return (Array(s.pending.values), s.onClose, s.keepAlive)
        }
        keepAlive?.cancel()
        for p in pending { p.continuation.resume(throwing: SMeetingError.internalError("meeting connection closed")) }
        if notify { onClose?() }
    }
}
