import Foundation

/// Encodes and decodes the meeting WebSocket's JSON messages (docs/meeting-protocol.md): keys
/// are snake_case, every request has an integer `id`, every response echoes it.
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

    private struct DataEnvelope<T: Decodable>: Decodable { var data: T? }
    private struct Request<T: Encodable>: Encodable { var id: Int; var type: String; var data: T }
    private struct Response<T: Encodable>: Encodable { var id: Int; var type: String; var ok: Bool; var data: T?; var error: MeetingErrorBody? }
    private struct Event<T: Encodable>: Encodable { var type: String; var data: T }

    private static func makeEncoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    private static func makeDecoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }

    /// Encodes any payload with the protocol's conventions (used by the HTTP routes too).
    public static func encode<T: Encodable>(_ value: T) -> String {
        (try? makeEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Decodes any payload with the protocol's conventions.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try makeDecoder().decode(T.self, from: data)
    }

    /// Reads the envelope of `text`; throws a `malformed_body` error for non-JSON or oversized text.
    public static func head(of text: String) throws(MeetingErrorBody) -> Head {
        guard text.utf8.count <= maxMessageBytes else { throw MeetingErrorBody(.payloadTooLarge, "message exceeds \(maxMessageBytes) bytes") }
        do { return try makeDecoder().decode(Head.self, from: Data(text.utf8)) } catch {
            throw MeetingErrorBody(.malformedBody, "message is not a JSON object with id and type")
        }
    }

    /// Decodes the `data` of `text` as `T`; an absent `data` decodes as `{}`. Errors name the field.
    public static func payload<T: Decodable>(_ type: T.Type, from text: String) throws(MeetingErrorBody) -> T {
        do {
            if let value = try makeDecoder().decode(DataEnvelope<T>.self, from: Data(text.utf8)).data { return value }
            return try makeDecoder().decode(T.self, from: Data("{}".utf8))
        } catch DecodingError.keyNotFound(let key, let context) {
            throw MeetingErrorBody(.malformedBody, "missing field \(fieldName(context.codingPath + [key]))")
        } catch DecodingError.typeMismatch(_, let context) {
            throw MeetingErrorBody(.malformedBody, "field \(fieldName(context.codingPath)) has the wrong type")
        } catch DecodingError.valueNotFound(_, let context) {
            throw MeetingErrorBody(.malformedBody, "field \(fieldName(context.codingPath)) is null")
        } catch DecodingError.dataCorrupted(let context) {
            throw MeetingErrorBody(.malformedBody, "field \(fieldName(context.codingPath)) has an invalid value")
        } catch {
            throw MeetingErrorBody(.malformedBody, "data is not valid")
        }
    }

    /// A decoding path as the wire spells it (`update.plan_time`), without the envelope's `data`.
    private static func fieldName(_ path: [any CodingKey]) -> String {
        let names = path.dropFirst(path.first?.stringValue == "data" ? 1 : 0).map { key -> String in
            if let index = key.intValue { return String(index) }
            var out = ""
            for c in key.stringValue {
                if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
            }
            return out
        }
        return names.isEmpty ? "data" : names.joined(separator: ".")
    }

    /// A request.
    public static func request<T: Encodable>(id: Int, type: MeetingRequestType, _ data: T) -> String {
        encode(Request(id: id, type: type.rawValue, data: data))
    }

    /// A successful response.
    public static func success<T: Encodable>(id: Int, type: String, _ data: T) -> String {
        encode(Response(id: id, type: type, ok: true, data: data, error: nil))
    }

    /// A failed response.
    public static func failure(id: Int, type: String, _ error: MeetingErrorBody) -> String {
        encode(Response<EmptyPayload>(id: id, type: type, ok: false, data: nil, error: error))
    }

    /// An event (without its `seq`, which each session adds with `sequenced`).
    public static func event<T: Encodable>(_ type: MeetingEventType, _ data: T) -> String {
        encode(Event(type: type.rawValue, data: data))
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
