/// A message from the server: a response to request `id`, or a pushed event (no `id`).
public enum ServerMessage: Sendable, Equatable {
    case response(id: Int, Response)
    case event(ServerEvent)
}

/// The answer to one request: its `type`, then data or an error.
public struct Response: Sendable, Equatable {
    /// The request's `type` string.
    public var type: String
    public var result: Result<ResponseData, SignalError>

    public init(type: String, result: Result<ResponseData, SignalError>) {
        self.type = type; self.result = result
    }
}

/// The data of a successful response.
public enum ResponseData: Sendable, Equatable {
    case joined(JoinResponse)
    case answer(PublishResponse)
    case pong(PongResponse)
    /// Requests that answer nothing beyond success.
    case empty
}

/// An error answered to a request: a code of `APIErrorCode` and a message.
public struct SignalError: Error, Codable, Sendable, Equatable {
    public var code: Int
    public var message: String

    public init(_ code: APIErrorCode, _ message: String) {
        self.code = code.rawValue; self.message = message
    }

    public var errorCode: APIErrorCode? { APIErrorCode(rawValue: code) }
}

/// The answer to `join`: who I am, the channel and everyone in it with their tracks.
public struct JoinResponse: Codable, Sendable, Equatable {
    public var sessionId: String
    public var resumed: Bool
    public var channel: ChannelInfo
    public var me: UserInfo
    /// Everyone else, with their tracks.
    public var users: [UserInfo]
    /// Seconds the server keeps a session whose WebSocket dropped.
    public var reconnectGraceSeconds: Int
    /// Unix milliseconds.
    public var serverTime: Int64
    /// My current subscriptions (non-empty on resume).
    public var subscriptions: [SubscribeRequest]
    /// TURN servers with short-lived credentials for this session (empty when none is configured).
    public var iceServers: [ICEServer]
    /// Tracks of hidden participants (server composites), which are in no user list; absent when none.
    public var hiddenTracks: [TrackInfo]
    /// Set (`true`) on a resume on another node than the session's last one (drain, failover):
    /// the session's transports did not move, so the client publishes its tracks again and
    /// answers a fresh subscriber offer (docs/protocol.md, "Moving to another node").
    public var moved: Bool?
    /// The joining uid's seal key (base64url of 32 bytes, docs/sealed-strings.md): what the SDK's
    /// `decrypt` opens this user's sealed strings with. Absent from servers that do not seal.
    public var sealKey: String?

    public init(sessionId: String, resumed: Bool, channel: ChannelInfo, me: UserInfo, users: [UserInfo],
                reconnectGraceSeconds: Int, serverTime: Int64, subscriptions: [SubscribeRequest] = [],
                iceServers: [ICEServer] = [], hiddenTracks: [TrackInfo] = []) {
        self.sessionId = sessionId; self.resumed = resumed; self.channel = channel; self.me = me; self.users = users
        self.reconnectGraceSeconds = reconnectGraceSeconds; self.serverTime = serverTime; self.subscriptions = subscriptions
        self.iceServers = iceServers
        self.hiddenTracks = hiddenTracks
    }

    enum CodingKeys: String, CodingKey {
        case resumed, channel, me, users, subscriptions, moved
        case sessionId = "session_id"
        case sealKey = "seal_key"
        case reconnectGraceSeconds = "reconnect_grace_seconds"
        case serverTime = "server_time"
        case iceServers = "ice_servers"
        case hiddenTracks = "hidden_tracks"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sessionId = try c.decode(String.self, forKey: .sessionId)
        resumed = try c.decode(Bool.self, forKey: .resumed)
        channel = try c.decode(ChannelInfo.self, forKey: .channel)
        me = try c.decode(UserInfo.self, forKey: .me)
        users = try c.decode([UserInfo].self, forKey: .users)
        reconnectGraceSeconds = try c.decode(Int.self, forKey: .reconnectGraceSeconds)
        serverTime = try c.decode(Int64.self, forKey: .serverTime)
        subscriptions = try c.decodeIfPresent([SubscribeRequest].self, forKey: .subscriptions) ?? []
        iceServers = try c.decodeIfPresent([ICEServer].self, forKey: .iceServers) ?? []
        hiddenTracks = try c.decodeIfPresent([TrackInfo].self, forKey: .hiddenTracks) ?? []
        moved = try c.decodeIfPresent(Bool.self, forKey: .moved)
        sealKey = try c.decodeIfPresent(String.self, forKey: .sealKey)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(resumed, forKey: .resumed)
        try c.encode(channel, forKey: .channel)
        try c.encode(me, forKey: .me)
        try c.encode(users, forKey: .users)
        try c.encode(reconnectGraceSeconds, forKey: .reconnectGraceSeconds)
        try c.encode(serverTime, forKey: .serverTime)
        try c.encode(subscriptions, forKey: .subscriptions)
        try c.encode(iceServers, forKey: .iceServers)
        if !hiddenTracks.isEmpty { try c.encode(hiddenTracks, forKey: .hiddenTracks) }
        try c.encodeIfPresent(moved, forKey: .moved)
        try c.encodeIfPresent(sealKey, forKey: .sealKey)
    }
}

/// A TURN (or STUN) server as WebRTC's `RTCIceServer`: URLs (`turn:host:3478?transport=udp`,
/// `turns:host:443?transport=tcp`) and, for TURN, a username and credential (RFC 8489 §9.2
/// long-term credentials; ours follow coturn's shared-secret REST scheme, docs/deploy.md).
public struct ICEServer: Codable, Sendable, Equatable {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls; self.username = username; self.credential = credential
    }
}

/// The answer to `publish` / `unpublish` with an offer / `restart_ice` of the publish transport.
public struct PublishResponse: Codable, Sendable, Equatable {
    public var sdp: String
    /// The tracks the offer added, with their server ids.
    public var tracks: [TrackInfo]

    public init(sdp: String, tracks: [TrackInfo]) {
        self.sdp = sdp; self.tracks = tracks
    }
}

/// The answer to `ping`.
public struct PongResponse: Codable, Sendable, Equatable {
    /// Unix milliseconds.
    public var serverTime: Int64
    public init(serverTime: Int64) { self.serverTime = serverTime }
    enum CodingKeys: String, CodingKey { case serverTime = "server_time" }
}

/// Events the server pushes.
public enum ServerEvent: Sendable, Equatable {
    case userJoined(UserInfo)
    case userUpdated(UserInfo)
    case userLeft(UserLeft)
    case meUpdated(UserInfo)
    case trackAdded(TrackEvent)
    case trackUpdated(TrackEvent)
    case trackRemoved(TrackEvent)
    /// A new offer for the subscribe transport; answer with `subscriber_answer`.
    case subscriberOffer(SessionDescriptionMessage)
    case message(CustomMessage)
    case channelUpdated(ChannelInfo)
    case qualityReport(QualityReport)
    case connectionQuality(ConnectionQualityChange)
    case activeSpeakers(ActiveSpeakersSnapshot)
    case layerSwitched(LayerSwitchedInfo)
    /// A live caption of someone's speech (server captions, docs/protocol.md "Captions").
    case caption(Caption)
    /// Dynacast: which layers of my track anyone receives now; the others may stop.
    case layersNeeded(LayersNeeded)
    /// A subscription ended without the client asking (track removed, permission...).
    case subscriptionEnded(SubscriptionEnded)
    /// The server ends this session; the WebSocket closes right after.
    case disconnected(Disconnected)
    /// The session is moving to another node (its node is draining): reconnect and `join` with
    /// the session id as after a dropped connection; the WebSocket closes right after.
    case reconnect(ReconnectNotice)
}

/// `user_left`.
public struct UserLeft: Codable, Sendable, Equatable {
    public var uid: String
    public var reason: DisconnectReason
    public init(uid: String, reason: DisconnectReason) { self.uid = uid; self.reason = reason }
}

/// `track_added` / `track_updated` / `track_removed`.
public struct TrackEvent: Codable, Sendable, Equatable {
    public var uid: String
    public var track: TrackInfo
    public init(uid: String, track: TrackInfo) { self.uid = uid; self.track = track }
}

/// `layers_needed` (docs/protocol.md, "Dynacast").
public struct LayersNeeded: Codable, Sendable, Equatable {
    public var trackId: String
    /// Layer descriptions (`camera_big`…), best first; empty: nobody receives the track.
    public var layers: [String]
    public init(trackId: String, layers: [String]) { self.trackId = trackId; self.layers = layers }
    enum CodingKeys: String, CodingKey {
        case layers
        case trackId = "track_id"
    }
}

/// `subscription_ended`.
public struct SubscriptionEnded: Codable, Sendable, Equatable {
    public var trackId: String
    public var reason: String
    public init(trackId: String, reason: String) { self.trackId = trackId; self.reason = reason }
    enum CodingKeys: String, CodingKey {
        case reason
        case trackId = "track_id"
    }
}

/// `reconnect` (docs/protocol.md, "Moving to another node").
public struct ReconnectNotice: Codable, Sendable, Equatable {
    /// Why: `node_draining`.
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

/// `disconnected`.
public struct Disconnected: Codable, Sendable, Equatable {
    public var reason: DisconnectReason
    public var message: String?
    public init(reason: DisconnectReason, message: String? = nil) { self.reason = reason; self.message = message }
}
