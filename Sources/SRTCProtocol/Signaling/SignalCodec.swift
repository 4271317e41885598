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

struct ClientRequestWire: Codable {
    let request: ClientRequest

    init(_ request: ClientRequest) { self.request = request }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: SignalCodec.Key.self)
        guard let type = try? c.decode(String.self, forKey: .type) else { throw SignalDecodeError.missingType }
        let id = try? c.decode(Int.self, forKey: .id)
        func data<T: Decodable>(_ t: T.Type) throws -> T { try decodeData(t, c, type, id: id) }
        let body: ClientRequest.Body
        switch type {
        case "join": body = .join(try data(JoinRequest.self))
        case "leave": body = .leave
        case "publish": body = .publish(try data(PublishRequest.self))
        case "unpublish": body = .unpublish(try data(UnpublishRequest.self))
        case "subscribe": body = .subscribe(try data(SubscribeRequest.self))
        case "unsubscribe": body = .unsubscribe(try data(TrackRef.self))
        case "set_layer": body = .setLayer(try data(SubscribeRequest.self))
        case "subscriber_answer": body = .subscriberAnswer(try data(SessionDescriptionMessage.self))
        case "mute": body = .mute(try data(MuteRequest.self))
        case "send_message": body = .sendMessage(try data(SendMessageRequest.self))
        case "update_profile": body = .updateProfile(try data(ProfileUpdate.self))
        case "restart_ice": body = .restartICE(try data(RestartICERequest.self))
        case "ping": body = .ping
        default: throw SignalDecodeError.unknownType(type, id: id)
        }
        guard let id else { throw SignalDecodeError.missingId(type) }
        request = ClientRequest(id: id, body)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: SignalCodec.Key.self)
        try c.encode(request.id, forKey: .id)
        try c.encode(request.body.typeName, forKey: .type)
        switch request.body {
        case .join(let d): try c.encode(d, forKey: .data)
        case .publish(let d): try c.encode(d, forKey: .data)
        case .unpublish(let d): try c.encode(d, forKey: .data)
        case .subscribe(let d), .setLayer(let d): try c.encode(d, forKey: .data)
        case .unsubscribe(let d): try c.encode(d, forKey: .data)
        case .subscriberAnswer(let d): try c.encode(d, forKey: .data)
        case .mute(let d): try c.encode(d, forKey: .data)
        case .sendMessage(let d): try c.encode(d, forKey: .data)
        case .updateProfile(let d): try c.encode(d, forKey: .data)
        case .restartICE(let d): try c.encode(d, forKey: .data)
        case .leave, .ping: break
        }
    }
}

extension ClientRequest.Body {
    /// The `type` string on the wire.
    public var typeName: String {
        switch self {
        case .join: return "join"
        case .leave: return "leave"
        case .publish: return "publish"
        case .unpublish: return "unpublish"
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .setLayer: return "set_layer"
        case .subscriberAnswer: return "subscriber_answer"
        case .mute: return "mute"
        case .sendMessage: return "send_message"
        case .updateProfile: return "update_profile"
        case .restartICE: return "restart_ice"
        case .ping: return "ping"
        }
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
            let data: ResponseData
            switch type {
            case "join": data = .joined(try decodeData(JoinResponse.self, c, type, id: id))
            case "ping": data = .pong(try decodeData(PongResponse.self, c, type, id: id))
            case "publish", "unpublish", "restart_ice":
                data = c.contains(.data) && (try? c.decodeNil(forKey: .data)) == false
                    ? .answer(try decodeData(PublishResponse.self, c, type, id: id)) : .empty
            default: data = .empty
            }
            message = .response(id: id, Response(type: type, result: .success(data)))
            return
        }
        func data<T: Decodable>(_ t: T.Type) throws -> T { try decodeData(t, c, type, id: nil) }
        let event: ServerEvent
        switch type {
        case "user_joined": event = .userJoined(try data(UserInfo.self))
        case "user_updated": event = .userUpdated(try data(UserInfo.self))
        case "user_left": event = .userLeft(try data(UserLeft.self))
        case "me_updated": event = .meUpdated(try data(UserInfo.self))
        case "track_added": event = .trackAdded(try data(TrackEvent.self))
        case "track_updated": event = .trackUpdated(try data(TrackEvent.self))
        case "track_removed": event = .trackRemoved(try data(TrackEvent.self))
        case "subscriber_offer": event = .subscriberOffer(try data(SessionDescriptionMessage.self))
        case "message": event = .message(try data(CustomMessage.self))
        case "channel_updated": event = .channelUpdated(try data(ChannelInfo.self))
        case "quality_report": event = .qualityReport(try data(QualityReport.self))
        case "connection_quality": event = .connectionQuality(try data(ConnectionQualityChange.self))
        case "active_speakers": event = .activeSpeakers(try data(ActiveSpeakersSnapshot.self))
        case "layer_switched": event = .layerSwitched(try data(LayerSwitchedInfo.self))
        case "layers_needed": event = .layersNeeded(try data(LayersNeeded.self))
        case "subscription_ended": event = .subscriptionEnded(try data(SubscriptionEnded.self))
        case "disconnected": event = .disconnected(try data(Disconnected.self))
        case "reconnect": event = .reconnect(try data(ReconnectNotice.self))
        default: throw SignalDecodeError.unknownType(type, id: nil)
        }
        message = .event(event)
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
            try c.encode(event.typeName, forKey: .type)
            switch event {
            case .userJoined(let d), .userUpdated(let d), .meUpdated(let d): try c.encode(d, forKey: .data)
            case .userLeft(let d): try c.encode(d, forKey: .data)
            case .trackAdded(let d), .trackUpdated(let d), .trackRemoved(let d): try c.encode(d, forKey: .data)
            case .subscriberOffer(let d): try c.encode(d, forKey: .data)
            case .message(let d): try c.encode(d, forKey: .data)
            case .channelUpdated(let d): try c.encode(d, forKey: .data)
            case .qualityReport(let d): try c.encode(d, forKey: .data)
            case .connectionQuality(let d): try c.encode(d, forKey: .data)
            case .activeSpeakers(let d): try c.encode(d, forKey: .data)
            case .layerSwitched(let d): try c.encode(d, forKey: .data)
            case .layersNeeded(let d): try c.encode(d, forKey: .data)
            case .subscriptionEnded(let d): try c.encode(d, forKey: .data)
            case .disconnected(let d): try c.encode(d, forKey: .data)
            case .reconnect(let d): try c.encode(d, forKey: .data)
            }
        }
    }
}

extension ServerEvent {
    /// The `type` string on the wire.
    public var typeName: String {
        switch self {
        case .userJoined: return "user_joined"
        case .userUpdated: return "user_updated"
        case .userLeft: return "user_left"
        case .meUpdated: return "me_updated"
        case .trackAdded: return "track_added"
        case .trackUpdated: return "track_updated"
        case .trackRemoved: return "track_removed"
        case .subscriberOffer: return "subscriber_offer"
        case .message: return "message"
        case .channelUpdated: return "channel_updated"
        case .qualityReport: return "quality_report"
        case .connectionQuality: return "connection_quality"
        case .activeSpeakers: return "active_speakers"
        case .layerSwitched: return "layer_switched"
        case .layersNeeded: return "layers_needed"
        case .subscriptionEnded: return "subscription_ended"
        case .disconnected: return "disconnected"
        case .reconnect: return "reconnect"
        }
    }
}
