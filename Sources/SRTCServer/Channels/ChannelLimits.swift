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
