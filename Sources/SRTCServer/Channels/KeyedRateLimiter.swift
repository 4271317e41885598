import RTCNet
import Synchronization

/// A rate per key (an IP address, a member), shared by threads: the join limits of signaling
/// (`--address-joins-per-second`) and of the meeting WebSocket (per address and per member).
/// A rate of 0 admits everything (the limit is off).
package final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
    package let ratePerSecond: Int
    private let buckets: Mutex<KeyedTokenBuckets<Key>>

    /// - Parameters:
    ///   - ratePerSecond: what each key may do per second; 0: no limit.
    ///   - burstSeconds: the bucket holds this many seconds' worth (a burst at once).
    package init(ratePerSecond: Int, burstSeconds: Int = 1) {
        self.ratePerSecond = ratePerSecond
        buckets = Mutex(KeyedTokenBuckets(ratePerSecond: Double(ratePerSecond), burst: Double(ratePerSecond * burstSeconds)))
    }

    /// Takes one from `key`'s allowance; `false`: over the limit (refuse with `rate_limited`).
    package func admits(_ key: Key) -> Bool {
        guard ratePerSecond > 0 else { return true }
        return buckets.withLock { $0.take(key, now: Double(Monotonic.now()) / 1e9) }
    }
}
