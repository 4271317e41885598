import Foundation
import RTCNet
import SRTCCore
import SRTCProtocol

/// One IM WebSocket (docs/im.md): `login`, requests with awaited answers, `message` events in
/// arrival order on the socket's reader thread. A new `IMClient` is made for every (re)connection;
/// `IMLink` owns the account's state across them. The request table is RTCNet's
/// `WebSocketRequestClient`, as for signaling and meetings.
final class IMClient: Sendable {
    /// A response's text, decoded by the caller.
    struct Answer: Sendable { let text: String }

    private let requests: WebSocketRequestClient<Answer, IMMessage>
    static let requestTimeout: Duration = .seconds(15)

    private init(socket: WebSocket) {
        requests = WebSocketRequestClient(socket: socket) { text in
            guard let head = try? JSONEnvelope.head(of: text, maxBytes: .max) else { return .ignored }
            if let id = head.id { return .response(id: id, Answer(text: text)) }
            guard head.type == IMEventType.message.rawValue, let message = try? JSONEnvelope.payload(IMMessage.self, from: text) else {
                return .ignored  // an event of a newer server: skipped
            }
            return .event(message)
        }
    }

    /// Opens the WebSocket (nothing is read before `start`).
    static func connect(url: String, tls: TLSConfiguration) async throws(SRTCError) -> IMClient {
        do {
            let configuration = WebSocketConfiguration(maxMessageSize: 1 << 20, closeTimeout: .seconds(2), pingInterval: .seconds(5))
            return IMClient(socket: try await WebSocketClient.connect(url: url, configuration: configuration, tls: tls, timeout: .seconds(10)))
        } catch {
            throw .connectionFailed("IM: cannot connect to \(url): \(error)")
        }
    }

    /// Starts reading; `onMessage` runs on the reader thread in arrival order, `onClose` once.
    func start(onMessage: @escaping @Sendable (IMMessage) -> Void, onClose: @escaping @Sendable () -> Void) {
        requests.start(onEvent: onMessage, onClose: { _ in onClose() })
        requests.keepAlive(every: .seconds(10)) { [weak self] () throws(WebSocketRequestClient<Answer, IMMessage>.Failure) in
            guard let self else { return }
            _ = try await self.requests.request(timeout: .seconds(10)) { id in JSONEnvelope.request(id: id, type: IMRequestType.ping.rawValue, JSONEnvelope.Empty()) }
        }
    }

    /// Sends a request and decodes its answer as `R`; a refusal throws `.server(code:message:)`.
    /// - Parameter onAnswer: runs on the reader thread with a successful answer, before any later
    ///   message (the login's resume point is set before the replay is handled).
    func call<T: Encodable & Sendable, R: Decodable & Sendable>(_ type: IMRequestType, _ data: T, _ result: R.Type,
                                                                onAnswer: (@Sendable (R) -> Void)? = nil) async throws(SRTCError) -> R {
        let answer: Answer
        do {
            answer = try await requests.request(timeout: Self.requestTimeout, onResponse: onAnswer.map { hook in
                { @Sendable (answer: Answer) -> Void in
                    if let value = try? JSONEnvelope.payload(R.self, from: answer.text),
                       (try? JSONEnvelope.head(of: answer.text, maxBytes: .max))?.ok == true { hook(value) }
                }
            }) { id in JSONEnvelope.request(id: id, type: type.rawValue, data) }
        } catch .timeout {
            throw .timeout("no answer to IM \(type.rawValue)")
        } catch {
            throw .connectionFailed("the IM connection closed")
        }
        let head: JSONEnvelope.Head
        do { head = try JSONEnvelope.head(of: answer.text, maxBytes: .max) } catch { throw .connectionFailed("bad IM answer") }
        if head.ok != true {
            let error = head.error ?? SignalError(.internalError, "refused")
            throw .server(code: error.code, message: error.message)
        }
        do { return try JSONEnvelope.payload(R.self, from: answer.text) } catch { throw .connectionFailed("bad IM answer to \(type.rawValue): \(error.message)") }
    }

    /// Sends a request without waiting (acknowledgements), in order with everything else.
    func send<T: Encodable & Sendable>(_ type: IMRequestType, _ data: T) {
        requests.send { id in JSONEnvelope.request(id: id, type: type.rawValue, data) }
    }

    /// Closes the socket; requests in flight fail and `onClose` does not run.
    func close() {
        requests.close(reason: "IM disabled", notify: false)
    }
}
