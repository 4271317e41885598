import Foundation
import RTCNet
import SMeetingProtocol

/// The meeting WebSocket (docs/meeting-protocol.md): numbered requests with awaited responses,
/// pushed events delivered in arrival order on the socket's thread, keep-alive pings, on RTCNet's
/// `WebSocketRequestClient` (shared with SRTC's `SignalClient`). Responses are kept as text and
/// decoded by the caller, which knows the type of its answer.
final class MeetingClient: Sendable {
    private typealias Session = WebSocketRequestClient<String, (MeetingEventType, String)>
    private let session: Session

    private init(socket: WebSocket) {
        session = Session(socket: socket) { text in
            guard let head = try? MeetingCodec.head(of: text) else { return .ignored }
            if let id = head.id { return .response(id: id, text) }
            guard let name = head.type, let type = MeetingEventType(rawValue: name) else { return .ignored }
            return .event((type, text))
        }
    }

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

    static func connect(url: String, tls: TLSConfiguration) async throws(SMeetingError) -> MeetingClient {
        do {
            let configuration = WebSocketConfiguration(maxMessageSize: 4 * MeetingCodec.maxMessageBytes, closeTimeout: .seconds(2),
                                                       pingInterval: .seconds(5))
            return MeetingClient(socket: try await WebSocketClient.connect(url: url, configuration: configuration, tls: tls, timeout: .seconds(10)))
        } catch {
            throw .internalError("cannot connect to \(url): \(error)")
        }
    }

    /// Starts delivering events and watching the socket; pings every 10 s of silence.
    func start(onEvent: @escaping @Sendable (MeetingEventType, String) -> Void, onClose: @escaping @Sendable () -> Void) {
        session.start(onEvent: { onEvent($0.0, $0.1) }, onClose: { _ in onClose() })
        session.keepAlive(every: .seconds(10)) { [weak self] () throws(Session.Failure) in
            guard let self else { return }
            _ = try await self.session.request(timeout: .seconds(10)) { MeetingCodec.request(id: $0, type: .ping, EmptyPayload()) }
        }
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
                guard (try? MeetingCodec.head(of: text))?.ok == true, let value = try? MeetingCodec.payload(R.self, from: text) else { return }
                onResponse(value)
            }
        }
        let finalHook = hook
        let text: String
        do throws(Session.Failure) {
            text = try await session.request(timeout: timeout, onResponse: finalHook) { MeetingCodec.request(id: $0, type: type, data) }
        } catch {
            switch error {
            case .timeout: throw .internalError("no answer to \(type.rawValue)")
            case .closed: throw .internalError("meeting connection closed")
            }
        }
        let head: MeetingCodec.Head
        do { head = try MeetingCodec.head(of: text) } catch { throw .internalError("bad answer: \(error.message)") }
        if head.ok != true { throw SMeetingError(head.error ?? MeetingErrorBody(.internalError, "refused")) }
        do { return try MeetingCodec.payload(R.self, from: text) } catch { throw .internalError("bad answer to \(type.rawValue): \(error.message)") }
    }

    /// Closes the socket ("logout"); pending requests fail at once and `onClose` is not called.
    func close() {
        session.close(reason: "logout", notify: false)
    }
}

/// A connection is itself (`SMeetingMachine` tells the live one from older ones by identity).
extension MeetingClient: Equatable {
    static func == (a: MeetingClient, b: MeetingClient) -> Bool { a === b }
}
