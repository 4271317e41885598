import Foundation
import RTCNet
import SRTCProtocol
import Synchronization
import TestWait

/// A protocol-level client for the JSON WebSocket protocols with the `JSONEnvelope` shape (IM,
/// meetings): numbered requests, every received message kept in order so tests can wait for one.
public final class TestEnvelopeSocket: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A response, decoded lazily.
    public struct Answer: Sendable {
        public let text: String
        public var ok: Bool { (try? JSONEnvelope.head(of: text, maxBytes: .max))?.ok == true }
        public var error: SignalError? { (try? JSONEnvelope.head(of: text, maxBytes: .max))?.error }
        public func data<T: Decodable>(_ type: T.Type) throws -> T { try JSONEnvelope.payload(T.self, from: text) }
    }

    public let socket: WebSocket
    private let inbox = Mutex<[String]>([])
    private let nextId = Mutex(1)

    public init(url: String) async throws {
        socket = try await WebSocketClient.connect(url: url, timeout: hangTimeout)
        socket.onMessage { [weak self] message in
            if case .text(let text) = message { self?.inbox.withLock { $0.append(text) } }
        }
    }

    /// Every message received so far, in order.
    public var received: [String] { inbox.withLock { $0 } }

    /// The `data` of every event of type `type` so far, in order.
    public func events<T: Decodable>(_ type: String, as: T.Type) -> [T] {
        received.filter { text in
            guard let head = try? JSONEnvelope.head(of: text, maxBytes: .max) else { return false }
            return head.id == nil && head.type == type
        }.compactMap { try? JSONEnvelope.payload(T.self, from: $0) }
    }

    /// Sends raw text (malformed-input tests).
    public func send(raw text: String) { socket.send(text: text) }

    /// Sends request `type` with `data` and waits for its answer.
    public func call<T: Encodable>(_ type: String, _ data: T, timeout: Double = 60) async throws -> Answer {
        let id = nextId.withLock { n -> Int in defer { n += 1 }; return n }
        socket.send(text: JSONEnvelope.request(id: id, type: type, data))
        return try await answer(id: id, timeout: timeout)
    }

    /// Waits for the answer to request `id`.
    public func answer(id: Int, timeout: Double = 60) async throws -> Answer {
        try await wait(timeout: timeout, "the answer to \(id)") { texts in
            texts.first { (try? JSONEnvelope.head(of: $0, maxBytes: .max))?.id == id }.map(Answer.init)
        }
    }

    /// Waits until `probe` finds something in the received messages.
    public func wait<R>(timeout: Double = 60, _ what: String, _ probe: ([String]) -> R?) async throws -> R {
        try await waitFor(timeout: timeout, "\(what); received: \(received.suffix(5))") { probe(received) }
    }

    /// Waits for the socket to close; returns its close code.
    public func closed(timeout: Double = 60) async throws -> UInt16? {
        try await waitFor(timeout: timeout, "the socket to close") { socket.closeInfo.map { $0.code.rawValue } }
    }

    public func close() { socket.close() }
}
