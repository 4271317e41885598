/// `--joins-per-second` per channel counted across every node: one Redis counter per channel and
/// second (`INCR`, expiring after two seconds). A fixed one-second window admits at most twice
/// the rate across a window edge, the same bound the local token bucket's burst allows.
public struct ClusterJoinLimiter: Sendable {
    public let redis: RedisClient
    public let joinsPerSecond: Int

    public init(redis: RedisClient, joinsPerSecond: Int) {
        self.redis = redis
        self.joinsPerSecond = joinsPerSecond
    }

    /// Whether one more join of `channel` fits in the current second (`nowMilliseconds`, Unix).
    /// Redis unreachable: the local bucket alone decides (a join is not a security check).
    public func admit(_ channel: ChannelKey, nowMilliseconds: Int64) async -> Bool {
        let key = "srtc:joins:\(channel.appId)/\(channel.name):\(nowMilliseconds / 1000)"
        guard case .integer(let count) = try? await redis.run(["INCR", key]) else { return true }
        if count == 1 { _ = try? await redis.run(["EXPIRE", key, "2"]) }
        return count <= joinsPerSecond
    }
}
