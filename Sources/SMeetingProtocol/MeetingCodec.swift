import Foundation
import SRTCProtocol

/// Encodes and decodes the meeting WebSocket's JSON messages (docs/meeting-protocol.md): the
/// envelope shared with IM and signaling (`JSONEnvelope`: snake_case keys, every request with an
/// integer `id` its response echoes), with the meeting's request and event names, its error
/// body, its size limit and the `seq` of events.
public enum MeetingCodec {
    /// The largest message either side accepts (bigger ones close the socket with 1009).
    public static let maxMessageBytes = 64 * 1024

    /// What every incoming message starts with.
    public struct Head: Decodable, Sendable {
        public var id: Int?
        public var type: String?
        public var ok: Bool?
        public var error: MeetingErrorBody?
        /// An event's number in its session (1, 2, 3…), for resuming after a dropped connection.
        public var seq: Int?
    }

    /// Encodes any payload with the protocol's conventions (used by the HTTP routes too).
    public static func encode<T: Encodable>(_ value: T) -> String {
        JSONEnvelope.encode(value)
    }

    /// Decodes any payload with the protocol's conventions.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONEnvelope.decode(T.self, from: data)
    }

    /// Reads the envelope of `text`; throws a `malformed_body` error for non-JSON, `payload_too_large`
    /// for oversized text.
    public static func head(of text: String) throws(MeetingErrorBody) -> Head {
        do { return try JSONEnvelope.head(Head.self, of: text, maxBytes: maxMessageBytes) } catch { throw MeetingErrorBody(error) }
    }

    /// Decodes the `data` of `text` as `T`; an absent `data` decodes as `{}`. Errors name the field.
    public static func payload<T: Decodable>(_ type: T.Type, from text: String) throws(MeetingErrorBody) -> T {
        do { return try JSONEnvelope.payload(T.self, from: text) } catch { throw MeetingErrorBody(error) }
    }

    /// A request.
    public static func request<T: Encodable>(id: Int, type: MeetingRequestType, _ data: T) -> String {
        JSONEnvelope.request(id: id, type: type.rawValue, data)
    }

    /// A successful response.
    public static func success<T: Encodable>(id: Int, type: String, _ data: T) -> String {
        JSONEnvelope.success(id: id, type: type, data)
    }

    /// A failed response.
    public static func failure(id: Int, type: String, _ error: MeetingErrorBody) -> String {
        JSONEnvelope.failure(id: id, type: type, error)
    }

    /// An event (without its `seq`, which each session adds with `sequenced`).
    public static func event<T: Encodable>(_ type: MeetingEventType, _ data: T) -> String {
        JSONEnvelope.event(type.rawValue, data)
    }

    /// An encoded event with its session's sequence number added as the first key: an event is
    /// encoded once for every recipient, and numbered per recipient without decoding it again.
    public static func sequenced(_ event: String, seq: Int) -> String {
        guard event.hasPrefix("{") else { return event }
        let rest = event.dropFirst()
        if rest.drop(while: \.isWhitespace).first == "}" { return "{\"seq\":\(seq)}" }
        return "{\"seq\":\(seq)," + rest
    }
}

extension MeetingErrorBody {
    /// The envelope's error (same codes: `malformed_body` 40001, `payload_too_large` 41301).
    init(_ error: SignalError) {
        self.init(code: error.code, message: error.message)
    }
}
