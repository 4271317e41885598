/// The replay cache shared by every node: a nonce is one Redis key, `SET … NX EX`, so a nonce
/// used on one node is refused on all of them (docs/server-api.md, "Replay"). When Redis cannot
/// be reached the request is refused as `rate_limited` (retry later) rather than accepted
/// unchecked: a replay must never get through because a dependency is down.
///
/// Every check is a network round trip, so it never answers on the HTTP I/O thread
/// (`recordImmediately` is `nil`): the router hands signed requests to the concurrency pool,
/// which awaits the reply on the Redis client's own queue.
public struct RedisNonceStore: NonceStore {
    public let redis: RedisClient

    public init(redis: RedisClient) { self.redis = redis }

    public func recordImmediately(appId: String, nonce: String, expiresAt: Int64, now: Int64) -> NonceCache.Outcome? { nil }

    public func record(appId: String, nonce: String, expiresAt: Int64, now: Int64) async -> NonceCache.Outcome {
        let seconds = max(1, expiresAt - now)
        do {
            let reply = try await redis.run(["SET", "srtc:nonce:\(appId):\(nonce)", "1", "NX", "EX", String(seconds)])
            return reply == .null ? .replayed : .fresh
        } catch {
            Log.warn("cluster", "nonce check failed, request refused: \(error)")
            return .full
        }
    }
}
