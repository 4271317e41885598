import Synchronization
import SRTCProtocol
@testable import SRTCServer

/// A `SignalConnection` that keeps every message the server sent it, decoded, and how it closed.
final class RecordingConnection: SignalConnection {
    private struct State {
        var messages: [ServerMessage] = []
        var closed: (code: UInt16, reason: String)?
    }

    private let state = Mutex(State())

    func send(text: String) {
        // The server's own encoding must decode: a failure here is a test failure, not a skip.
        let message = try! SignalCodec.decodeServerMessage(text)
        state.withLock { $0.messages.append(message) }
    }

    func close(code: UInt16, reason: String) {
        state.withLock { $0.closed = (code, reason) }
    }

    /// Everything sent, in order.
    var messages: [ServerMessage] { state.withLock { $0.messages } }

    /// The events sent, in order.
    var events: [ServerEvent] {
        messages.compactMap { if case .event(let e) = $0 { return e }; return nil }
    }

    /// The response to request `id`, if sent.
    func response(_ id: Int) -> Response? {
        for case .response(id, let response) in messages { return response }
        return nil
    }

    /// The close code, if the server closed this connection.
    var closeCode: UInt16? { state.withLock { $0.closed?.code } }

    /// The kinds of everything sent, in order (`response:subscribe`, `event:user_joined`), for order checks.
    var kinds: [String] {
        messages.map { message in
            switch message {
            case .response(_, let r): return "response:" + r.type
            case .event(let e): return "event:" + e.typeName
            }
        }
    }
}
