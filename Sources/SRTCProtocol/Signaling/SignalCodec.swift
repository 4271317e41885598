import Foundation

/// Why a signaling message could not be decoded. The server answers the request (when it has an
/// id) with `malformed_body` and the description, and keeps the session.
public enum SignalDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Larger than the message limit.
    case tooLarge(Int)
    /// Not a JSON object.
    case notJSON
    /// No `type` field.
    case missingType
    /// A `type` this version does not know; `id` is set when the message had one.
    case unknownType(String, id: Int?)
    /// A request without an integer `id`.
    case missingId(String)
    /// `data` does not fit the type.
    case invalidData(String, id: Int?, reason: String)

    public var description: String {
        switch self {
        case .tooLarge(let n): return "message of \(n) bytes exceeds the limit"
        case .notJSON: return "message is not a JSON object"
        case .missingType: return "message has no type"
        case .unknownType(let t, _): return "unknown message type '\(t)'"
        case .missingId(let t): return "request '\(t)' has no integer id"
        case .invalidData(let t, _, let reason): return "invalid data for '\(t)': \(reason)"
        }
    }

    /// The request id, when the message carried one (so the error can be answered).
    public var requestId: Int? {
        switch self {
        case .unknownType(_, let id), .invalidData(_, let id, _): return id
        default: return nil
        }
    }
}

/// JSON encoding and decoding of signaling messages (docs/protocol.md), both directions read
/// from one table per side (`ClientRequest.Body.table`, `ServerEvent.table`).
public enum SignalCodec {
    /// Default largest message accepted, in bytes (SDP offers with simulcast are a few KiB).
    public static let defaultMaxMessageBytes = 64 * 1024

    enum Key: String, CodingKey { case id, type, ok, data, error }

    /// Every request `type` of the wire, from the codec's table (docs/protocol.md names the same).
    public static var requestTypes: [String] { ClientRequest.Body.table.types }

    /// Every event `type` of the wire, from the codec's table.
    public static var eventTypes: [String] { ServerEvent.table.types }

    // MARK: - Client requests

    public static func encode(_ request: ClientRequest) -> String {
        encodeObject(ClientRequestWire(request))
    }

    public static func decodeClientRequest(_ text: String, maxBytes: Int = defaultMaxMessageBytes) throws(SignalDecodeError) -> ClientRequest {
        let bytes = Data(text.utf8)
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes.count) }
        do {
            return try JSONDecoder().decode(ClientRequestWire.self, from: bytes).request
        } catch let error as SignalDecodeError {
            throw error
        } catch {
            throw .notJSON
        }
    }

    // MARK: - Server messages

    public static func encode(_ message: ServerMessage) -> String {
        encodeObject(ServerMessageWire(message))
    }

    public static func decodeServerMessage(_ text: String, maxBytes: Int = 4 * defaultMaxMessageBytes) throws(SignalDecodeError) -> ServerMessage {
        let bytes = Data(text.utf8)
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes.count) }
        do {
            return try JSONDecoder().decode(ServerMessageWire.self, from: bytes).message
        } catch let error as SignalDecodeError {
            throw error
        } catch {
            throw .notJSON
        }
    }

    static func encodeObject<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// Decodes `data` of `type`, turning decoder failures into `invalidData`.
func decodeData<T: Decodable>(_ type: T.Type, _ c: KeyedDecodingContainer<SignalCodec.Key>, _ name: String, id: Int?) throws -> T {
    do {
        return try c.decode(T.self, forKey: .data)
    } catch DecodingError.keyNotFound(let key, let ctx) {
        let path = (ctx.codingPath.map(\.stringValue) + [key.stringValue]).filter { $0 != "data" }.joined(separator: ".")
        throw SignalDecodeError.invalidData(name, id: id, reason: "missing field \(path)")
    } catch DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx) {
        throw SignalDecodeError.invalidData(name, id: id, reason: "wrong type at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))")
    } catch DecodingError.dataCorrupted(let ctx) {
        throw SignalDecodeError.invalidData(name, id: id, reason: "bad value at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))")
    }
}

/// Reads `data` as the type a message's `type` names; failures become `invalidData`.
struct PayloadReader {
    let container: KeyedDecodingContainer<SignalCodec.Key>
    let type: String
    let id: Int?

    func callAsFunction<T: Decodable>(_ t: T.Type) throws -> T { try decodeData(t, container, type, id: id) }

    /// The message has a `data` that is not null.
    var isPresent: Bool { container.contains(.data) && (try? container.decodeNil(forKey: .data)) == false }
}

extension ClientRequest.Body {
    /// The requests of the wire (docs/protocol.md, "Requests"): the one place each `type` is
    /// written, with its case and what a successful response carries.
    static let table = SignalTable<Self>([
        SignalRow("join", Self.join, answer: .always(ResponseData.joined)),
        SignalRow("leave", Self.leave),
        SignalRow("publish", Self.publish, answer: .ifPresent(ResponseData.answer)),
        SignalRow("unpublish", Self.unpublish, answer: .ifPresent(ResponseData.answer)),
        SignalRow("subscribe", Self.subscribe),
        SignalRow("unsubscribe", Self.unsubscribe),
        SignalRow("set_layer", Self.setLayer),
        SignalRow("subscriber_answer", Self.subscriberAnswer),
        SignalRow("mute", Self.mute),
        SignalRow("send_message", Self.sendMessage),
        SignalRow("update_profile", Self.updateProfile),
        SignalRow("restart_ice", Self.restartICE, answer: .ifPresent(ResponseData.answer)),
        SignalRow("ping", Self.ping, answer: .always(ResponseData.pong)),
    ])

    /// The `type` string on the wire.
    public var typeName: String { Self.table.wire(self).type }
}

extension ServerEvent {
    /// The events of the wire (docs/protocol.md, "Events"), as `ClientRequest.Body.table`.
    static let table = SignalTable<Self>([
        SignalRow("user_joined", Self.userJoined),
        SignalRow("user_updated", Self.userUpdated),
        SignalRow("user_left", Self.userLeft),
        SignalRow("me_updated", Self.meUpdated),
        SignalRow("track_added", Self.trackAdded),
        SignalRow("track_updated", Self.trackUpdated),
        SignalRow("track_removed", Self.trackRemoved),
        SignalRow("subscriber_offer", Self.subscriberOffer),
        SignalRow("message", Self.message),
        SignalRow("channel_updated", Self.channelUpdated),
        SignalRow("quality_report", Self.qualityReport),
        SignalRow("connection_quality", Self.connectionQuality),
        SignalRow("active_speakers", Self.activeSpeakers),
        SignalRow("layer_switched", Self.layerSwitched),
        SignalRow("caption", Self.caption),
        SignalRow("layers_needed", Self.layersNeeded),
        SignalRow("subscription_ended", Self.subscriptionEnded),
        SignalRow("disconnected", Self.disconnected),
        SignalRow("reconnect", Self.reconnect),
    ])

    /// The `type` string on the wire.
    public var typeName: String { Self.table.wire(self).type }
}

struct ClientRequestWire: Codable {
    let request: ClientRequest

    init(_ request: ClientRequest) { self.request = request }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: SignalCodec.Key.self)
        guard let type = try? c.decode(String.self, forKey: .type) else { throw SignalDecodeError.missingType }
        let id = try? c.decode(Int.self, forKey: .id)
        guard let row = ClientRequest.Body.table.row(type) else { throw SignalDecodeError.unknownType(type, id: id) }
        let body = try row.decode(PayloadReader(container: c, type: type, id: id))
        guard let id else { throw SignalDecodeError.missingId(type) }
        request = ClientRequest(id: id, body)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: SignalCodec.Key.self)
        let (type, data) = ClientRequest.Body.table.wire(request.body)
        try c.encode(request.id, forKey: .id)
        try c.encode(type, forKey: .type)
        if let data { try c.encode(data, forKey: .data) }
    }
}

struct ServerMessageWire: Codable {
    let message: ServerMessage

    init(_ message: ServerMessage) { self.message = message }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: SignalCodec.Key.self)
        guard let type = try? c.decode(String.self, forKey: .type) else { throw SignalDecodeError.missingType }
        if let id = try? c.decode(Int.self, forKey: .id) {
            let ok = (try? c.decode(Bool.self, forKey: .ok)) ?? false
            if !ok {
                let error = (try? c.decode(SignalError.self, forKey: .error)) ?? SignalError(.internalError, "response without data or error")
                message = .response(id: id, Response(type: type, result: .failure(error)))
                return
            }
            // A response to a type this version does not know carries nothing it can read.
            let answer = ClientRequest.Body.table.row(type)?.answer ?? .nothing
            let result = try answer.read(PayloadReader(container: c, type: type, id: id))
            message = .response(id: id, Response(type: type, result: .success(result)))
            return
        }
        guard let row = ServerEvent.table.row(type) else { throw SignalDecodeError.unknownType(type, id: nil) }
        message = .event(try row.decode(PayloadReader(container: c, type: type, id: nil)))
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: SignalCodec.Key.self)
        switch message {
        case .response(let id, let response):
            try c.encode(id, forKey: .id)
            try c.encode(response.type, forKey: .type)
            switch response.result {
            case .success(let data):
                try c.encode(true, forKey: .ok)
                switch data {
                case .joined(let d): try c.encode(d, forKey: .data)
                case .answer(let d): try c.encode(d, forKey: .data)
                case .pong(let d): try c.encode(d, forKey: .data)
                case .empty: break
                }
            case .failure(let error):
                try c.encode(false, forKey: .ok)
                try c.encode(error, forKey: .error)
            }
        case .event(let event):
            let (type, data) = ServerEvent.table.wire(event)
            try c.encode(type, forKey: .type)
            if let data { try c.encode(data, forKey: .data) }
        }
    }
}
