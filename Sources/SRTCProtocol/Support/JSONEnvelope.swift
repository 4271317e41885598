import Foundation

/// The request / response / event envelope of the JSON WebSocket protocols that carry typed
/// payloads by name (docs/im.md, "Envelope": the same as signaling's; the meeting protocol's
/// `MeetingCodec` is this envelope with its own names and a `seq` on events), with snake_case keys
/// and errors as `{code, message}` (the server API's codes; `SignalError` here).
///
/// ```json
/// {"id": 7, "type": "send", "data": {...}}                       request
/// {"id": 7, "type": "send", "ok": true, "data": {...}}           response
/// {"id": 7, "type": "send", "ok": false, "error": {"code": 40401, "message": "…"}}
/// {"type": "message", "data": {...}}                             event
/// ```
public enum JSONEnvelope {
    /// What every message starts with.
    public struct Head: Decodable, Sendable {
        public var id: Int?
        public var type: String?
        public var ok: Bool?
        public var error: SignalError?
    }

    /// The payload of requests and responses that carry nothing.
    public struct Empty: Codable, Sendable, Equatable {
        public init() {}
    }

    private struct DataEnvelope<T: Decodable>: Decodable { var data: T? }
    private struct Request<T: Encodable>: Encodable { var id: Int; var type: String; var data: T }
    private struct Response<T: Encodable, E: Encodable>: Encodable { var id: Int; var type: String; var ok: Bool; var data: T?; var error: E? }
    private struct Event<T: Encodable>: Encodable { var type: String; var data: T }

    private static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    private static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }

    /// Encodes any payload with the envelope's conventions (HTTP routes use it too).
    public static func encode<T: Encodable>(_ value: T) -> String {
        (try? encoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Decodes any payload with the envelope's conventions.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(T.self, from: data)
    }

    /// Reads the envelope; `payload_too_large` past `maxBytes`, `malformed_body` for anything
    /// but a JSON object.
    public static func head(of text: String, maxBytes: Int) throws(SignalError) -> Head {
        try head(Head.self, of: text, maxBytes: maxBytes)
    }

    /// Reads the envelope as a protocol's own head type (more fields, its error type).
    public static func head<H: Decodable>(_ type: H.Type, of text: String, maxBytes: Int) throws(SignalError) -> H {
        guard text.utf8.count <= maxBytes else { throw SignalError(.payloadTooLarge, "message exceeds \(maxBytes) bytes") }
        do { return try decoder().decode(H.self, from: Data(text.utf8)) } catch {
            throw SignalError(.malformedBody, "message is not a JSON object with id and type")
        }
    }

    /// Decodes the `data` of `text` as `T` (an absent `data` as `{}`); errors name the field as
    /// the wire spells it.
    public static func payload<T: Decodable>(_ type: T.Type, from text: String) throws(SignalError) -> T {
        do {
            if let value = try decoder().decode(DataEnvelope<T>.self, from: Data(text.utf8)).data { return value }
            return try decoder().decode(T.self, from: Data("{}".utf8))
        } catch DecodingError.keyNotFound(let key, let context) {
            throw SignalError(.malformedBody, "missing field \(fieldName(context.codingPath + [key]))")
        } catch DecodingError.typeMismatch(_, let context) {
            throw SignalError(.malformedBody, "field \(fieldName(context.codingPath)) has the wrong type")
        } catch DecodingError.valueNotFound(_, let context) {
            throw SignalError(.malformedBody, "field \(fieldName(context.codingPath)) is null")
        } catch DecodingError.dataCorrupted(let context) {
            throw SignalError(.malformedBody, "field \(fieldName(context.codingPath)) has an invalid value")
        } catch {
            throw SignalError(.malformedBody, "data is not valid")
        }
    }

    /// A coding path as the wire spells it (`to`, `data.call_id`), without the envelope's `data`.
    static func fieldName(_ path: [any CodingKey]) -> String {
        let names = path.dropFirst(path.first?.stringValue == "data" ? 1 : 0).map { key -> String in
            if let index = key.intValue { return String(index) }
            return key.stringValue.reduce(into: "") { out, c in
                if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
            }
        }
        return names.isEmpty ? "data" : names.joined(separator: ".")
    }

    public static func request<T: Encodable>(id: Int, type: String, _ data: T) -> String {
        encode(Request(id: id, type: type, data: data))
    }

    public static func success<T: Encodable>(id: Int, type: String, _ data: T) -> String {
        encode(Response<T, SignalError>(id: id, type: type, ok: true, data: data, error: nil))
    }

    /// A failed response; `error` is `{code, message}` (`SignalError`, `MeetingErrorBody`).
    public static func failure<E: Encodable>(id: Int, type: String, _ error: E) -> String {
        encode(Response<Empty, E>(id: id, type: type, ok: false, data: nil, error: error))
    }

    public static func event<T: Encodable>(_ type: String, _ data: T) -> String {
        encode(Event(type: type, data: data))
    }
}
