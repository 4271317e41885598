/// Which node delivers the webhook outbox (docs/deploy.md, "A cluster of nodes"). Every node
/// stores its channels' events in the shared `webhook_deliveries` table; only the node holding
/// this lease (`srtc:webhook-lease`, expiring after `ttl` unless renewed) sends them. One sender
/// sends each event once and keeps each channel's events in sequence order, as on a single
/// node; if it dies, another node takes the lease within `ttl` and goes on from the table.
public struct OutboxLease: Sendable {
    public let redis: RedisClient
    public let nodeId: String
    public let ttlMilliseconds: Int

    public init(redis: RedisClient, nodeId: String, ttlMilliseconds: Int = 10_000) {
        self.redis = redis
        self.nodeId = nodeId
        self.ttlMilliseconds = ttlMilliseconds
    }

    /// Takes the lease if free, renews it if held by this node.
    static let script = """
        if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
        if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
        return 0
        """

    /// Whether this node holds the lease now (taking or renewing it); `false` when Redis is unreachable.
    public func hold() async -> Bool {
        let reply = try? await redis.run(["EVAL", Self.script, "1", "srtc:webhook-lease", nodeId, String(ttlMilliseconds)])
        return reply == .integer(1)
    }
}
