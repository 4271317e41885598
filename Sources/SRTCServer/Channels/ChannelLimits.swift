/// Configurable limits of channels and signaling (docs/protocol.md, "Limits").
public struct ChannelLimits: Sendable, Equatable {
    /// Users at once in one channel; `join` beyond gets `limit_reached`.
    public var maxUsersPerChannel = 100
    /// Tracks one user may publish at once; `publish` beyond gets `limit_reached`.
    public var maxTracksPerUser = 8
    /// Largest signaling message; larger closes the WebSocket with 1009.
    public var maxSignalMessageBytes = 64 * 1024
    /// Largest custom message `data`; larger gets `payload_too_large`.
    public var maxCustomMessageBytes = 16 * 1024
    /// Largest profile `custom` and channel `metadata`.
    public var maxCustomDataBytes = 4 * 1024
    /// Joins accepted per channel per second (a token bucket with this burst); beyond: `rate_limited`.
    public var joinsPerSecond = 20
    /// Joins one uid may make in one channel per second, after a burst of `userJoinBurstSeconds`
    /// seconds' worth; beyond: `rate_limited`. Resumes do not count. 0: no per-user limit.
    public var userJoinsPerSecond = 1
    /// The per-user bucket holds this many seconds of joins (5 at the default rate).
    public static let userJoinBurstSeconds = 5
    /// Joins (any channel, resumes included) accepted from one IP address per second, with the same
    /// burst; beyond: `rate_limited`. 0: no per-address limit (behind a proxy that hides clients).
    public var addressJoinsPerSecond = 20
    /// Seconds of clock skew tolerated on a token's `exp` and `nbf`; a session accepted with an
    /// expired-by-less-than-this token ends this long after `exp`.
    public var tokenLeewaySeconds: Int64 = 5
    /// How long a session whose WebSocket dropped is kept for resumption.
    public var reconnectGraceSeconds = 20
    /// Malformed messages tolerated per 10 s before the session is closed with 1008.
    public var maxBadMessagesPer10s = 20
    /// Seconds a new WebSocket may wait before sending `join`.
    public var joinTimeoutSeconds = 10
    /// On a cluster, participants of one channel whose media the channel's node serves itself;
    /// beyond, a session relayed by another node gets its subscriptions from that node, which
    /// relays the channel's tracks from this one (docs/deploy.md, "Channels larger than a node").
    /// 0: no limit.
    public var nodeChannelSubscribers = 0

    public init() {}
}
