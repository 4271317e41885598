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

/// JSON encoding and decoding of signaling messages (docs/protocol.md).
public enum SignalCodec {
    /// Default largest message accepted, in bytes (SDP offers with simulcast are a few KiB).
    public static let defaultMaxMessageBytes = 64 * 1024

    enum Key: String, CodingKey { case id, type, ok, data, error }

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

/// The `type` of every client request, as the wire spells it (docs/protocol.md): the one place
/// the names are written; the codec below and `typeName` read them from here.
public enum ClientRequestType: String, Sendable, CaseIterable {
    case join, leave, publish, unpublish, subscribe, unsubscribe
    case setLayer = "set_layer"
    case subscriberAnswer = "subscriber_answer"
    case mute
    case sendMessage = "send_message"
    case updateProfile = "update_profile"
    case restartICE = "restart_ice"
    case ping
}

/// The `type` of every server event, as the wire spells it (docs/protocol.md, "Events").
public enum ServerEventType: String, Sendable, CaseIterable {
    case userJoined = "user_joined"
    case userUpdated = "user_updated"
    case userLeft = "user_left"
    case meUpdated = "me_updated"
    case trackAdded = "track_added"
    case trackUpdated = "track_updated"
    case trackRemoved = "track_removed"
    case subscriberOffer = "subscriber_offer"
    case message
    case channelUpdated = "channel_updated"
    case qualityReport = "quality_report"
    case connectionQuality = "connection_quality"
    case activeSpeakers = "active_speakers"
    case layerSwitched = "layer_switched"
    case caption
    case layersNeeded = "layers_needed"
    case subscriptionEnded = "subscription_ended"
    case disconnected
    case reconnect
}

/// Reads `data` as the type a message's `type` names; failures become `invalidData`.
struct PayloadReader {
    let container: KeyedDecodingContainer<SignalCodec.Key>
    let type: String
    let id: Int?

    func callAsFunction<T: Decodable>(_ t: T.Type) throws -> T { try decodeData(t, container, type, id: id) }
}

extension ClientRequest.Body {
    /// The request's type and its `data` (nil: none): with `init(_:data:)`, the only place a
    /// request meets its wire form, one switch each way that the compiler checks is complete.
    var wire: (type: ClientRequestType, data: (any Encodable)?) {
        switch self {
        case .join(let d): (.join, d)
        case .leave: (.leave, nil)
        case .publish(let d): (.publish, d)
        case .unpublish(let d): (.unpublish, d)
        case .subscribe(let d): (.subscribe, d)
        case .unsubscribe(let d): (.unsubscribe, d)
        case .setLayer(let d): (.setLayer, d)
        case .subscriberAnswer(let d): (.subscriberAnswer, d)
        case .mute(let d): (.mute, d)
        case .sendMessage(let d): (.sendMessage, d)
        case .updateProfile(let d): (.updateProfile, d)
        case .restartICE(let d): (.restartICE, d)
        case .ping: (.ping, nil)
        }
    }

    init(_ type: ClientRequestType, data: PayloadReader) throws {
        switch type {
        case .join: self = .join(try data(JoinRequest.self))
        case .leave: self = .leave
        case .publish: self = .publish(try data(PublishRequest.self))
        case .unpublish: self = .unpublish(try data(UnpublishRequest.self))
        case .subscribe: self = .subscribe(try data(SubscribeRequest.self))
        case .unsubscribe: self = .unsubscribe(try data(TrackRef.self))
        case .setLayer: self = .setLayer(try data(SubscribeRequest.self))
        case .subscriberAnswer: self = .subscriberAnswer(try data(SessionDescriptionMessage.self))
        case .mute: self = .mute(try data(MuteRequest.self))
        case .sendMessage: self = .sendMessage(try data(SendMessageRequest.self))
        case .updateProfile: self = .updateProfile(try data(ProfileUpdate.self))
        case .restartICE: self = .restartICE(try data(RestartICERequest.self))
        case .ping: self = .ping
        }
    }

    /// The `type` string on the wire.
    public var typeName: String { wire.type.rawValue }
}

extension ServerEvent {
    /// The event's type and its `data`, as `ClientRequest.Body.wire`.
    var wire: (type: ServerEventType, data: any Encodable) {
        switch self {
        case .userJoined(let d): (.userJoined, d)
        case .userUpdated(let d): (.userUpdated, d)
        case .userLeft(let d): (.userLeft, d)
        case .meUpdated(let d): (.meUpdated, d)
        case .trackAdded(let d): (.trackAdded, d)
        case .trackUpdated(let d): (.trackUpdated, d)
        case .trackRemoved(let d): (.trackRemoved, d)
        case .subscriberOffer(let d): (.subscriberOffer, d)
        case .message(let d): (.message, d)
        case .channelUpdated(let d): (.channelUpdated, d)
        case .qualityReport(let d): (.qualityReport, d)
        case .connectionQuality(let d): (.connectionQuality, d)
        case .activeSpeakers(let d): (.activeSpeakers, d)
        case .layerSwitched(let d): (.layerSwitched, d)
        case .caption(let d): (.caption, d)
        case .layersNeeded(let d): (.layersNeeded, d)
        case .subscriptionEnded(let d): (.subscriptionEnded, d)
        case .disconnected(let d): (.disconnected, d)
        case .reconnect(let d): (.reconnect, d)
        }
    }

    init(_ type: ServerEventType, data: PayloadReader) throws {
        switch type {
        case .userJoined: self = .userJoined(try data(UserInfo.self))
        case .userUpdated: self = .userUpdated(try data(UserInfo.self))
        case .userLeft: self = .userLeft(try data(UserLeft.self))
        case .meUpdated: self = .meUpdated(try data(UserInfo.self))
        case .trackAdded: self = .trackAdded(try data(TrackEvent.self))
        case .trackUpdated: self = .trackUpdated(try data(TrackEvent.self))
        case .trackRemoved: self = .trackRemoved(try data(TrackEvent.self))
        case .subscriberOffer: self = .subscriberOffer(try data(SessionDescriptionMessage.self))
        case .message: self = .message(try data(CustomMessage.self))
        case .channelUpdated: self = .channelUpdated(try data(ChannelInfo.self))
        case .qualityReport: self = .qualityReport(try data(QualityReport.self))
        case .connectionQuality: self = .connectionQuality(try data(ConnectionQualityChange.self))
        case .activeSpeakers: self = .activeSpeakers(try data(ActiveSpeakersSnapshot.self))
        case .layerSwitched: self = .layerSwitched(try data(LayerSwitchedInfo.self))
        case .caption: self = .caption(try data(Caption.self))
        case .layersNeeded: self = .layersNeeded(try data(LayersNeeded.self))
        case .subscriptionEnded: self = .subscriptionEnded(try data(SubscriptionEnded.self))
        case .disconnected: self = .disconnected(try data(Disconnected.self))
        case .reconnect: self = .reconnect(try data(ReconnectNotice.self))
        }
    }

    /// The `type` string on the wire.
    public var typeName: String { wire.type.rawValue }
}

struct ClientRequestWire: Codable {
    let request: ClientRequest

    init(_ request: ClientRequest) { self.request = request }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: SignalCodec.Key.self)
        guard let type = try? c.decode(String.self, forKey: .type) else { throw SignalDecodeError.missingType }
        let id = try? c.decode(Int.self, forKey: .id)
        guard let known = ClientRequestType(rawValue: type) else { throw SignalDecodeError.unknownType(type, id: id) }
        let body = try ClientRequest.Body(known, data: PayloadReader(container: c, type: type, id: id))
        guard let id else { throw SignalDecodeError.missingId(type) }
        request = ClientRequest(id: id, body)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: SignalCodec.Key.self)
        let (type, data) = request.body.wire
        try c.encode(request.id, forKey: .id)
        try c.encode(type.rawValue, forKey: .type)
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
            let data = PayloadReader(container: c, type: type, id: id)
            let result: ResponseData
            switch ClientRequestType(rawValue: type) {
            case .join: result = .joined(try data(JoinResponse.self))
            case .ping: result = .pong(try data(PongResponse.self))
            case .publish, .unpublish, .restartICE:
                result = c.contains(.data) && (try? c.decodeNil(forKey: .data)) == false ? .answer(try data(PublishResponse.self)) : .empty
            default: result = .empty
            }
            message = .response(id: id, Response(type: type, result: .success(result)))
            return
        }
        guard let known = ServerEventType(rawValue: type) else { throw SignalDecodeError.unknownType(type, id: nil) }
        message = .event(try ServerEvent(known, data: PayloadReader(container: c, type: type, id: nil)))
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
            let (type, data) = event.wire
            try c.encode(type.rawValue, forKey: .type)
            try c.encode(data, forKey: .data)
        }
    }
}
