/// Where signed requests' nonces are remembered until their window passes: `NonceCache` in the
/// process (one node), `RedisNonceStore` across a cluster (`--redis-url`).
public protocol NonceStore: Sendable {
    /// Records `nonce` for `appId` until `expiresAt` (Unix seconds); `.replayed` if it was seen.
    func insert(appId: String, nonce: String, expiresAt: Int64, now: Int64) -> NonceCache.Outcome
}

extension NonceCache: NonceStore {}
