import Synchronization

/// Remembers the nonces of accepted signed requests until their timestamps leave the window, so
/// a captured request cannot be replayed. Memory is bounded: past `capacity` live entries new
/// nonces are refused (the caller answers `rate_limited`) rather than forgetting old ones, which
/// would reopen replay.
///
/// Entries are 64-bit keyed hashes of `app_id` and nonce (process-random seed); with a few million
/// live entries a false "replayed" has a probability around 10⁻⁶ per request at worst.
public final class NonceCache: Sendable {
    /// What `insert` decided.
    public enum Outcome: Sendable, Equatable { case fresh, replayed, full }

    private struct Shard {
        var live: Set<UInt64> = []
        /// Hashes by the Unix second at which they expire.
        var expiring: [Int64: [UInt64]] = [:]
        var oldestBucket: Int64 = .max
    }

    private final class LockedShard: Sendable {
        let mutex = Mutex(Shard())
    }

    private let shards: [LockedShard]
    private let capacityPerShard: Int

    public init(capacity: Int) {
        let count = 16
        shards = (0..<count).map { _ in LockedShard() }
        capacityPerShard = max(1, capacity / count)
    }

    /// Records `nonce` for `appId` until `expiresAt` (Unix seconds), sweeping entries expired at `now`.
    public func insert(appId: String, nonce: String, expiresAt: Int64, now: Int64) -> Outcome {
        var hasher = Hasher()
        hasher.combine(appId)
        hasher.combine(nonce)
        let key = UInt64(bitPattern: Int64(hasher.finalize()))
        return shards[Int(key % UInt64(shards.count))].mutex.withLock { shard in
            Self.sweep(&shard, now: now)
            if shard.live.contains(key) { return .replayed }
            guard shard.live.count < capacityPerShard else { return .full }
            shard.live.insert(key)
            shard.expiring[expiresAt, default: []].append(key)
            shard.oldestBucket = min(shard.oldestBucket, expiresAt)
            return .fresh
        }
    }

    /// Number of live entries (for metrics and tests).
    public var count: Int {
        shards.reduce(0) { total, shard in total + shard.mutex.withLock { $0.live.count } }
    }

    private static func sweep(_ shard: inout Shard, now: Int64) {
        guard shard.oldestBucket < now else { return }
        // Buckets span at most the window (600 s), so walking seconds is bounded and cheap.
        var second = shard.oldestBucket
        while second < now {
            if let keys = shard.expiring.removeValue(forKey: second) {
                for k in keys { shard.live.remove(k) }
            }
            second += 1
            if shard.expiring.isEmpty { break }
        }
        shard.oldestBucket = shard.expiring.isEmpty ? .max : max(now, shard.expiring.keys.min() ?? now)
    }
}
