import Foundation
import RTCNet
import SRTCProtocol
import Synchronization
import TestWait

/// A protocol-level client over a real WebSocket: sends requests, awaits their responses, and
/// records events so tests can wait for one.
public final class TestSignalClient: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    private struct State {
        var nextId = 1
        var responses: [Int: Response] = [:]
        var events: [ServerEvent] = []
        var raw: [String] = []
    }

    public let socket: WebSocket
    private let state = Mutex(State())

    public init(url: String) async throws {
        socket = try await WebSocketClient.connect(url: url, timeout: hangTimeout)
        socket.onMessage { [weak self] message in
            guard case .text(let text) = message else { return }
            self?.record(text)
        }
    }

    private func record(_ text: String) {
        state.withLock { $0.raw.append(text) }
        guard let decoded = try? SignalCodec.decodeServerMessage(text) else { return }
        state.withLock { s in
            switch decoded {
            case .response(let id, let r): s.responses[id] = r
            case .event(let e): s.events.append(e)
            }
        }
    }

    /// Sends a request and waits for its response.
    @discardableResult
    public func request(_ body: ClientRequest.Body, timeout: Double = 60) async throws -> Result<ResponseData, SignalError> {
        let id = state.withLock { s -> Int in defer { s.nextId += 1 }; return s.nextId }
        socket.send(text: SignalCodec.encode(ClientRequest(id: id, body)))
        return try await response(id: id, timeout: timeout).result
    }

    /// The id of the request sent last.
    public var lastRequestId: Int { state.withLock { $0.nextId - 1 } }

    /// Sends raw text (malformed-input tests).
    public func sendRaw(_ text: String) { socket.send(text: text) }

    public func response(id: Int, timeout: Double = 60) async throws -> Response {
        try await waitFor("response \(id)", timeout: timeout) { $0.responses[id] }
    }

    /// Joins and returns the response.
    public func join(token: String, sessionId: String? = nil, nickname: String? = nil, dataChannel: Bool? = nil) async throws -> JoinResponse {
        switch try await request(.join(JoinRequest(token: token, sessionId: sessionId, nickname: nickname, sdk: "test", dataChannel: dataChannel))) {
        case .success(.joined(let r)): return r
        case let other: throw Failure(description: "join failed: \(other)")
        }
    }

    /// Waits until an event matching `match` has arrived (and returns the first match).
    @discardableResult
    public func event<T>(timeout: Double = 60, _ what: String = "event", _ match: @escaping (ServerEvent) -> T?) async throws -> T {
        try await waitFor(what, timeout: timeout) { s in s.events.lazy.compactMap(match).first }
    }

    public var events: [ServerEvent] { state.withLock { $0.events } }
    public var rawMessages: [String] { state.withLock { $0.raw } }

    /// Waits for `probe` to find something; fails at once when the socket has closed without it
    /// (nothing can arrive any more: the close, with its code and reason, is the failure, not a
    /// timeout a minute later). Messages are recorded on the I/O thread before the close is.
    private func waitFor<T>(_ what: String, timeout: Double, _ probe: (State) -> T?) async throws -> T {
        try await TestWait.waitFor(timeout: timeout, "\(what); events: \(events.map(\.typeName))") {
            if let found = state.withLock({ probe($0) }) { return found }
            guard let closed = socket.closeInfo else { return nil }
            if let found = state.withLock({ probe($0) }) { return found }
            throw Failure(description: "the socket closed (\(closed)) before \(what); events: \(events.map(\.typeName))")
        }
    }

    public func close() { socket.close() }
}

extension Result where Success == ResponseData, Failure == SignalError {
    /// The error code of a refused request (`nil` on success).
    public var errorCode: APIErrorCode? { if case .failure(let e) = self { return e.errorCode }; return nil }
    public var isSuccess: Bool { if case .success = self { return true }; return false }
}
