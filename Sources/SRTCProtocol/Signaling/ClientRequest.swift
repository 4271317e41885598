/// The signaling protocol version this build speaks (docs/protocol.md).
public let signalingProtocolVersion = 1

/// A request from a client on the signaling WebSocket: `{"id": n, "type": T, "data": {...}}`.
/// Every request gets exactly one response with the same `id` and `type`.
public struct ClientRequest: Sendable, Equatable {
    public var id: Int
    public var body: Body

    public init(id: Int, _ body: Body) {
        self.id = id
        self.body = body
    }

    /// The request kinds; their `type` strings are `ClientRequestType`'s.
    public enum Body: Sendable, Equatable {
        case join(JoinRequest)
        case leave
        case publish(PublishRequest)
        case unpublish(UnpublishRequest)
        case subscribe(SubscribeRequest)
        case unsubscribe(TrackRef)
        case setLayer(SubscribeRequest)
        case subscriberAnswer(SessionDescriptionMessage)
        case mute(MuteRequest)
        case sendMessage(SendMessageRequest)
        case updateProfile(ProfileUpdate)
        case restartICE(RestartICERequest)
        case ping
    }
}

/// `join`: the first request of a session (or of a resumed one).
public struct JoinRequest: Codable, Sendable, Equatable {
    public var token: String
    public var protocolVersion: Int
    /// Resume this session (kept for the grace period after a lost WebSocket).
    public var sessionId: String?
    public var nickname: String?
    public var custom: String?
    /// A label for logs (`srtc-swift/1.0 linux`, the browser's user agent).
    public var sdk: String?
    /// The client takes the subscribe transport's data channels (docs/protocol.md, "Data
    /// channels"): the server offers the transport at once, with an application section.
    public var dataChannel: Bool?
    /// The video codecs the client decodes, preferred first (`vp8`, `vp9`, `h264`, compared
    /// case-insensitively; H.264 with a profile as `h264;profile-level-id=64001f`, a plain `h264`
    /// being Constrained Baseline); nil: every codec the server forwards. A subscription to a
    /// track in another codec or H.264 profile gets no media and a `subscription_ended` with
    /// `codec_unsupported`.
    public var videoCodecs: [String]?

    public init(token: String, protocolVersion: Int = signalingProtocolVersion, sessionId: String? = nil, nickname: String? = nil,
                custom: String? = nil, sdk: String? = nil, dataChannel: Bool? = nil, videoCodecs: [String]? = nil) {
        self.token = token; self.protocolVersion = protocolVersion; self.sessionId = sessionId
        self.nickname = nickname; self.custom = custom; self.sdk = sdk; self.dataChannel = dataChannel
        self.videoCodecs = videoCodecs
    }

    enum CodingKeys: String, CodingKey {
        case token, nickname, custom, sdk
        case protocolVersion = "protocol"
        case sessionId = "session_id"
        case dataChannel = "data_channel"
        case videoCodecs = "video_codecs"
    }

    /// `token` may be absent when the WebSocket URL carried it (`?token=`, docs/protocol.md).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        token = try c.decodeIfPresent(String.self, forKey: .token) ?? ""
        protocolVersion = try c.decode(Int.self, forKey: .protocolVersion)
        sessionId = try c.decodeIfPresent(String.self, forKey: .sessionId)
        nickname = try c.decodeIfPresent(String.self, forKey: .nickname)
        custom = try c.decodeIfPresent(String.self, forKey: .custom)
        sdk = try c.decodeIfPresent(String.self, forKey: .sdk)
        dataChannel = try c.decodeIfPresent(Bool.self, forKey: .dataChannel)
        videoCodecs = try c.decodeIfPresent([String].self, forKey: .videoCodecs)
    }
}

/// What the client says about one track it adds in a publish offer.
public struct PublishTrack: Codable, Sendable, Equatable {
    /// The m-section (`a=mid`) that carries the track in the offer.
    public var mid: String
    public var kind: TrackKind
    public var desc: String
    public var muted: Bool
    /// Simulcast layers by rid (video only).
    public var layers: [SimulcastLayer]
    /// The track's frames are end-to-end encrypted (docs/e2ee.md); announced in its `TrackInfo`.
    public var e2ee: Bool?

    public init(mid: String, kind: TrackKind, desc: String, muted: Bool = false, layers: [SimulcastLayer] = [], e2ee: Bool? = nil) {
        self.mid = mid; self.kind = kind; self.desc = desc; self.muted = muted; self.layers = layers; self.e2ee = e2ee
    }
}

/// `publish`: an offer for the publish transport with the tracks it adds.
public struct PublishRequest: Codable, Sendable, Equatable {
    public var sdp: String
    public var tracks: [PublishTrack]

    public init(sdp: String, tracks: [PublishTrack]) {
        self.sdp = sdp; self.tracks = tracks
    }
}

/// `unpublish`: stop a track; `sdp` is the renegotiated offer when the client removed the m-section's sender.
public struct UnpublishRequest: Codable, Sendable, Equatable {
    public var trackId: String
    public var sdp: String?

    public init(trackId: String, sdp: String? = nil) {
        self.trackId = trackId; self.sdp = sdp
    }

    enum CodingKeys: String, CodingKey {
        case sdp
        case trackId = "track_id"
    }
}

/// `subscribe` / `set_layer`: a remote track and, for simulcast video, the wanted layer desc.
public struct SubscribeRequest: Codable, Sendable, Equatable {
    public var trackId: String
    public var layer: String?

    public init(trackId: String, layer: String? = nil) {
        self.trackId = trackId; self.layer = layer
    }

    enum CodingKeys: String, CodingKey {
        case layer
        case trackId = "track_id"
    }
}

/// A track id alone (`unsubscribe`).
public struct TrackRef: Codable, Sendable, Equatable {
    public var trackId: String
    public init(trackId: String) { self.trackId = trackId }
    enum CodingKeys: String, CodingKey { case trackId = "track_id" }
}

/// An SDP offer or answer with the revision it belongs to (subscribe transport renegotiation).
public struct SessionDescriptionMessage: Codable, Sendable, Equatable {
    public var sdp: String
    public var revision: Int

    public init(sdp: String, revision: Int) {
        self.sdp = sdp; self.revision = revision
    }
}

/// `mute`: mute or unmute one of my tracks.
public struct MuteRequest: Codable, Sendable, Equatable {
    public var trackId: String
    public var muted: Bool

    public init(trackId: String, muted: Bool) {
        self.trackId = trackId; self.muted = muted
    }

    enum CodingKeys: String, CodingKey {
        case muted
        case trackId = "track_id"
    }
}

/// `send_message`: a custom message to everyone else (`to` nil or empty) or to a list of uids.
public struct SendMessageRequest: Codable, Sendable, Equatable {
    public var to: [String]?
    public var data: String

    public init(to: [String]? = nil, data: String) {
        self.to = to; self.data = data
    }
}

/// `update_profile`: change my nickname and custom data; nil fields stay as they are.
public struct ProfileUpdate: Codable, Sendable, Equatable {
    public var nickname: String?
    public var custom: String?

    public init(nickname: String? = nil, custom: String? = nil) {
        self.nickname = nickname; self.custom = custom
    }
}

/// `restart_ice`: new ICE credentials for a transport after the media path changed.
/// For `publish`, `sdp` is the client's new offer (with new ufrag/pwd); for `subscribe` the server
/// answers with a new `subscriber_offer`.
public struct RestartICERequest: Codable, Sendable, Equatable {
    public var transport: TransportRole
    public var sdp: String?

    public init(transport: TransportRole, sdp: String? = nil) {
        self.transport = transport; self.sdp = sdp
    }
}

/// The two transports of a participant.
public enum TransportRole: String, Codable, Sendable, Equatable {
    case publish, subscribe
}
