/// Non-negative integer samples (microseconds, per-mille, kbit/s…) counted in log-linear buckets:
/// exact below 32, then 16 buckets per power of two, so a percentile or a bucket edge is within
/// about 6 % of the true value, up to 2^33. Recording is one increment in a fixed array: no
/// allocation on a packet path. Used for the load generator's delays, the SFU's forwarding latency
/// and the distributions `/metrics` shows (rendered as Prometheus histograms with `count(atMost:)`).
/// Not thread-safe: one owner records; others take a copy.
public struct LogHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two.
    static let subBuckets = 16
    /// Values below this are counted exactly.
    static let linearLimit: Int64 = 32
    static let bucketCount = 32 + 29 * 16

    private var counts = [UInt32](repeating: 0, count: LogHistogram.bucketCount)
    /// Samples recorded.
    public private(set) var count = 0
    /// Largest sample.
    public private(set) var maximum: Int64 = 0
    /// Sum of the samples (Prometheus `_sum`).
    public private(set) var sum: Double = 0

    public init() {}

    /// Counts one sample; negative values count as 0.
    @inline(__always)
    public mutating func record(_ value: Int64) {
        let value = max(0, value)
        counts[Self.bucket(of: value)] &+= 1
        count += 1
        sum += Double(value)
        if value > maximum { maximum = value }
    }

    /// Adds `other`'s samples to this one.
    public mutating func merge(_ other: LogHistogram) {
        for index in counts.indices { counts[index] &+= other.counts[index] }
        count += other.count
        sum += other.sum
        maximum = max(maximum, other.maximum)
    }

    /// The samples recorded since `earlier` (a copy of this histogram taken before); the maximum
    /// stays this one's.
    public func subtracting(_ earlier: LogHistogram) -> LogHistogram {
        var window = self
        for index in counts.indices { window.counts[index] = counts[index] &- earlier.counts[index] }
        window.count = count - earlier.count
        window.sum = sum - earlier.sum
        return window
    }

    /// The value at `fraction` (0…1) of the samples (the upper edge of its bucket, so never below
    /// the true value, and never above the largest sample); 0 when empty.
    public func percentile(_ fraction: Double) -> Int64 {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((Double(count) * min(1, max(0, fraction))).rounded(.up)))
        var seen = 0
        for (index, n) in counts.enumerated() where n > 0 {
            seen += Int(n)
            if seen >= rank { return min(maximum, Self.upperBound(of: index)) }
        }
        return maximum
    }

    /// Samples in buckets that lie entirely at or below `bound` (a Prometheus `le` bucket: a
    /// bucket straddling `bound` counts above it).
    public func count(atMost bound: Int64) -> Int {
        var total = 0
        for (index, n) in counts.enumerated() where n > 0 {
            guard Self.upperBound(of: index) <= bound else { break }
            total += Int(n)
        }
        return total
    }

    /// Mean of the samples.
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    // MARK: - Buckets

    /// Values below 32 map to themselves; above, each power of two [2^k, 2^(k+1)) splits into 16.
    static func bucket(of value: Int64) -> Int {
        if value < linearLimit { return Int(value) }
        let power = 63 - value.leadingZeroBitCount          // ≥ 5
        let sub = Int(value >> (power - 4)) & (subBuckets - 1)
        return min(bucketCount - 1, 32 + (power - 5) * subBuckets + sub)
    }

    /// The largest value that falls into bucket `index` (the last bucket also holds everything above).
    static func upperBound(of index: Int) -> Int64 {
        if index < Int(linearLimit) { return Int64(index) }
        if index == bucketCount - 1 { return .max }
        let power = (index - 32) / subBuckets + 5
        let sub = Int64((index - 32) % subBuckets)
        let width = Int64(1) << (power - 4)
        return (Int64(1) << power) + (sub + 1) * width - 1
    }
}
