/// The replay cache shared by every node: a nonce is one Redis key, `SET … NX EX`, so a nonce
/// used on one node is refused on all of them (docs/server-api.md, "Replay"). When Redis cannot
/// be reached the request is refused as `rate_limited` (retry later) rather than accepted
/// unchecked: a replay must never get through because a dependency is down.
public struct RedisNonceStore: NonceStore {
    public let redis: RedisClient

    public init(redis: RedisClient) { self.redis = redis }

    public func insert(appId: String, nonce: String, expiresAt: Int64, now: Int64) -> NonceCache.Outcome {
        let seconds = max(1, expiresAt - now)
        do {
            let reply = try redis.command(["SET", "srtc:nonce:\(appId):\(nonce)", "1", "NX", "EX", String(seconds)])
            return reply == .null ? .replayed : .fresh
        } catch {
            Log.warn("cluster", "nonce check failed, request refused: \(error)")
            return .full
        }
    }
}
