/// Where signed requests' nonces are remembered until their window passes: `NonceCache` in the
/// process (one node), `RedisNonceStore` across a cluster (`--redis-url`).
public protocol NonceStore: Sendable {
    /// Records `nonce` for `appId` until `expiresAt` (Unix seconds) if that needs no waiting,
    /// returning `.replayed` if it was seen; `nil` when the answer needs a round trip, so the
    /// caller must not block (the HTTP I/O thread hands the request to `record`).
    func recordImmediately(appId: String, nonce: String, expiresAt: Int64, now: Int64) -> NonceCache.Outcome?
    /// Records `nonce`, awaiting the store if needed.
    func record(appId: String, nonce: String, expiresAt: Int64, now: Int64) async -> NonceCache.Outcome
}

extension NonceCache: NonceStore {
    public func recordImmediately(appId: String, nonce: String, expiresAt: Int64, now: Int64) -> Outcome? {
        insert(appId: appId, nonce: nonce, expiresAt: expiresAt, now: now)
    }

    public func record(appId: String, nonce: String, expiresAt: Int64, now: Int64) async -> Outcome {
        insert(appId: appId, nonce: nonce, expiresAt: expiresAt, now: now)
    }
}
