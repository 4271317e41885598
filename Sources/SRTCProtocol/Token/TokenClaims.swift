/// What a channel token allows (docs/server-api.md, "Tokens").
public struct ChannelGrant: Codable, Sendable, Equatable {
    /// The channel the token joins.
    public var channel: String
    /// May publish tracks.
    public var publish: Bool
    /// May subscribe to other users' tracks.
    public var subscribe: Bool
    /// May send custom messages and update its own profile.
    public var publishData: Bool
    /// A hidden participant (the server's egress workers: composites, recorders): never in user
    /// lists or `user_count`, not counted against the user limit, no `user_joined` / `user_left`;
    /// its tracks are announced like any other. Only tokens the server mints with the app's key
    /// carry it; `/server/v1/channel/grant` never does. Absent means `false`.
    public var hidden: Bool
    /// One of the server's own publishers (a composite, an ingress): its video is answered in the
    /// codec its offer prefers, whatever the server's `--video-codecs` list says (that list is for
    /// clients; the server's workers encode or pass through what they can). Only tokens the server
    /// mints for its workers carry it; `/server/v1/channel/grant` never does. Absent means `false`.
    public var serverPublisher: Bool

    public init(channel: String, publish: Bool = true, subscribe: Bool = true, publishData: Bool = true, hidden: Bool = false,
                serverPublisher: Bool = false) {
        self.channel = channel
        self.publish = publish
        self.subscribe = subscribe
        self.publishData = publishData
        self.hidden = hidden
        self.serverPublisher = serverPublisher
    }

    enum CodingKeys: String, CodingKey {
        case channel, publish, subscribe, hidden
        case publishData = "publish_data"
        case serverPublisher = "server_publisher"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channel = try c.decode(String.self, forKey: .channel)
        publish = try c.decode(Bool.self, forKey: .publish)
        subscribe = try c.decode(Bool.self, forKey: .subscribe)
        publishData = try c.decode(Bool.self, forKey: .publishData)
        hidden = try c.decodeIfPresent(Bool.self, forKey: .hidden) ?? false
        serverPublisher = try c.decodeIfPresent(Bool.self, forKey: .serverPublisher) ?? false
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channel, forKey: .channel)
        try c.encode(publish, forKey: .publish)
        try c.encode(subscribe, forKey: .subscribe)
        try c.encode(publishData, forKey: .publishData)
        if hidden { try c.encode(true, forKey: .hidden) }
        if serverPublisher { try c.encode(true, forKey: .serverPublisher) }
    }
}

/// What an SMeeting member token carries: the member's identity for the meeting backend.
public struct MemberGrant: Codable, Sendable, Equatable {
    public var nickname: String?

    public init(nickname: String? = nil) {
        self.nickname = nickname
    }
}

/// What an IM token carries (`POST /server/v1/im/grant`, docs/im.md): the account's display name.
public struct IMGrant: Codable, Sendable, Equatable {
    public var nickname: String?

    public init(nickname: String? = nil) {
        self.nickname = nickname
    }
}

/// What a speed-test token carries (`POST /server/v1/speedtest/grant`, docs/speed-test.md):
/// nothing but its presence; the server's limits apply.
public struct SpeedTestGrant: Codable, Sendable, Equatable {
    public init() {}
}

/// The claims of a join token: RFC 7519 registered claims plus one grant.
public struct TokenClaims: Codable, Sendable, Equatable {
    /// Issuer: the `app_id` whose `app_key` signed the token.
    public var iss: String
    /// Subject: the user id.
    public var sub: String
    /// Issued at, Unix seconds.
    public var iat: Int64
    /// Not before, Unix seconds.
    public var nbf: Int64
    /// Expires at, Unix seconds.
    public var exp: Int64
    /// Unique token id.
    public var jti: String
    /// Present on SRTC channel tokens.
    public var grant: ChannelGrant?
    /// Present on SMeeting member tokens.
    public var member: MemberGrant?
    /// Present on IM tokens.
    public var im: IMGrant?
    /// Present on speed-test tokens.
    public var speedTest: SpeedTestGrant?

    public init(iss: String, sub: String, iat: Int64, nbf: Int64, exp: Int64, jti: String, grant: ChannelGrant? = nil, member: MemberGrant? = nil,
                im: IMGrant? = nil, speedTest: SpeedTestGrant? = nil) {
        self.iss = iss
        self.sub = sub
        self.iat = iat
        self.nbf = nbf
        self.exp = exp
        self.jti = jti
        self.grant = grant
        self.member = member
        self.im = im
        self.speedTest = speedTest
    }

    enum CodingKeys: String, CodingKey {
        case iss, sub, iat, nbf, exp, jti, grant, member, im
        case speedTest = "speed_test"
    }
}
