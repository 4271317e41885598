/// Media kind of a track.
public enum TrackKind: String, Codable, Sendable, Equatable {
    case audio, video
}

/// The documented track descriptions. A track's `desc` may also be any custom string
/// (`createLocalCustomVideoTrack(desc: "canvas")`), so the wire carries a plain string.
public enum TrackDescName {
    public static let mic = "mic"
    public static let cameraBig = "camera_big"
    public static let cameraSmall = "camera_small"
    public static let screen = "screen"
}

/// One simulcast layer of a video track: the RTP stream id (RFC 8851) and the description a
/// subscriber asks for (`camera_big` / `camera_small`).
public struct SimulcastLayer: Codable, Sendable, Equatable {
    public var rid: String
    public var desc: String
    public var width: Int?
    public var height: Int?
    public var maxBitrate: Int?

    public init(rid: String, desc: String, width: Int? = nil, height: Int? = nil, maxBitrate: Int? = nil) {
        self.rid = rid; self.desc = desc; self.width = width; self.height = height; self.maxBitrate = maxBitrate
    }

    enum CodingKeys: String, CodingKey {
        case rid, desc, width, height
        case maxBitrate = "max_bitrate"
    }
}

/// A published track as every participant sees it.
public struct TrackInfo: Codable, Sendable, Equatable {
    /// Server-assigned id, unique in the channel.
    public var id: String
    /// The publisher's uid.
    public var uid: String
    public var kind: TrackKind
    /// `mic`, `camera_big`, `screen` or a custom description.
    public var desc: String
    public var muted: Bool
    /// Simulcast layers, best first; empty for a single-stream track.
    public var layers: [SimulcastLayer]
    /// Codec name as in the answer's `a=rtpmap`: `opus`, `VP8` or `H264` (compare case-insensitively).
    public var codec: String?
    /// An H.264 track's `profile-level-id` (RFC 6184 §8.1) when its profile is Main (`4d…`) or
    /// High (`64…`): a subscriber is offered that profile. Absent for Constrained Baseline and
    /// for other codecs.
    public var profileLevelID: String?
    /// The publisher said its frames are end-to-end encrypted (docs/e2ee.md): the server cannot
    /// record or compose them. Absent when not.
    public var e2ee: Bool?

    public init(id: String, uid: String, kind: TrackKind, desc: String, muted: Bool = false, layers: [SimulcastLayer] = [], codec: String? = nil,
                profileLevelID: String? = nil, e2ee: Bool? = nil) {
        self.id = id; self.uid = uid; self.kind = kind; self.desc = desc; self.muted = muted; self.layers = layers; self.codec = codec
        self.profileLevelID = profileLevelID
        self.e2ee = e2ee
    }

    enum CodingKeys: String, CodingKey {
        case id, uid, kind, desc, muted, layers, codec, e2ee
        case profileLevelID = "profile_level_id"
    }
}

/// A user in a channel.
public struct UserInfo: Codable, Sendable, Equatable {
    public var uid: String
    public var nickname: String?
    /// Free-form application data (for example JSON text), at most 4 KiB.
    public var custom: String?
    /// Unix milliseconds.
    public var joinedAt: Int64
    public var tracks: [TrackInfo]

    public init(uid: String, nickname: String? = nil, custom: String? = nil, joinedAt: Int64, tracks: [TrackInfo] = []) {
        self.uid = uid; self.nickname = nickname; self.custom = custom; self.joinedAt = joinedAt; self.tracks = tracks
    }

    enum CodingKeys: String, CodingKey {
        case uid, nickname, custom, tracks
        case joinedAt = "joined_at"
    }
}

/// A channel's public state.
public struct ChannelInfo: Codable, Sendable, Equatable {
    public var channel: String
    /// Unix milliseconds.
    public var createdAt: Int64
    public var userCount: Int
    /// Application metadata set through the server API, at most 4 KiB.
    public var metadata: String?

    public init(channel: String, createdAt: Int64, userCount: Int, metadata: String? = nil) {
        self.channel = channel; self.createdAt = createdAt; self.userCount = userCount; self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case channel, metadata
        case createdAt = "created_at"
        case userCount = "user_count"
    }
}

/// Why a user left or a session ended.
public enum DisconnectReason: String, Codable, Sendable, Equatable {
    /// The user called leave.
    case clientLeave = "client_leave"
    /// Removed through the server API.
    case kicked
    /// The same uid joined again elsewhere; the older session ends.
    case duplicateLogin = "duplicate_login"
    /// The channel was closed through the server API.
    case channelClosed = "channel_closed"
    /// The connection was lost and not resumed within the grace period.
    case timeout
    /// The token expired while connected.
    case tokenExpired = "token_expired"
    /// The server is shutting down.
    case serverShutdown = "server_shutdown"
    /// A protocol or internal error ended the session.
    case error
}

/// A custom message between users (or from the customer's backend, `from` = nil).
public struct CustomMessage: Codable, Sendable, Equatable {
    public var from: String?
    /// Recipients; nil or empty means everyone else in the channel.
    public var to: [String]?
    public var data: String
    /// Unix milliseconds, set by the server.
    public var timestamp: Int64

    public init(from: String?, to: [String]?, data: String, timestamp: Int64) {
        self.from = from; self.to = to; self.data = data; self.timestamp = timestamp
    }
}
