/// A token bucket: `burst` tokens, refilled at `ratePerSecond`.
struct TokenBucket {
    let ratePerSecond: Double
    let burst: Double
    private var tokens: Double
    private var last: Double?

    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.tokens = burst
    }

    mutating func take(now: Double) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whether the bucket has refilled completely by `now` (it then behaves as a new one).
    func isFull(now: Double) -> Bool {
        guard let last else { return true }
        return tokens + (now - last) * ratePerSecond >= burst
    }

    private mutating func refill(now: Double) {
        if let last { tokens = min(burst, tokens + max(0, now - last) * ratePerSecond) }
        last = now
    }
}

/// One token bucket per key (a uid, an IP address), created on first use. Memory stays bounded by
/// the keys active recently: when the map grows past `pruneThreshold`, buckets that refilled
/// completely are dropped (a full bucket is the same as a fresh one).
struct KeyedTokenBuckets<Key: Hashable> {
    let ratePerSecond: Double
    let burst: Double
    private var buckets: [Key: TokenBucket] = [:]
    private var pruneThreshold = 1024

    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst)
    }

    /// Takes a token from `key`'s bucket.
    mutating func take(_ key: Key, now: Double) -> Bool {
        if buckets.count >= pruneThreshold { prune(now: now) }
        return buckets[key, default: TokenBucket(ratePerSecond: ratePerSecond, burst: burst)].take(now: now)
    }

    /// Keys with a bucket (for tests).
    var count: Int { buckets.count }

    private mutating func prune(now: Double) {
        buckets = buckets.filter { !$0.value.isFull(now: now) }
        // Whatever is still draining stays; prune again only once the map doubled from here.
        pruneThreshold = max(1024, 2 * buckets.count)
    }
}
