/// Delays in microseconds, counted in log-linear buckets (16 per power of two, so any percentile
/// is within about 6 % of the true value) from 1 µs to about two hours. Recording is one
/// increment in a fixed array: no allocation on the packet path. Not thread-safe: one owner
/// records; others take a copy.
package struct DelayHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two.
    static let subBuckets = 16
    /// Values below this are counted exactly.
    static let linearLimit: Int64 = 32
    static let bucketCount = 32 + 28 * 16

    private var counts = [UInt32](repeating: 0, count: DelayHistogram.bucketCount)
    /// Samples recorded.
    package private(set) var count = 0
    /// Largest sample, µs.
    package private(set) var maximum: Int64 = 0
    private var sum: Double = 0

    package init() {}

    /// Counts one delay; negative values count as 0.
    @inline(__always)
    package mutating func record(_ micros: Int64) {
        let value = max(0, micros)
        counts[Self.bucket(of: value)] &+= 1
        count += 1
        sum += Double(value)
        if value > maximum { maximum = value }
    }

    /// Adds `other`'s samples to this one.
    package mutating func merge(_ other: DelayHistogram) {
        for index in counts.indices { counts[index] &+= other.counts[index] }
        count += other.count
        sum += other.sum
        maximum = max(maximum, other.maximum)
    }

    /// The delay at `fraction` (0…1) of the samples, µs (the upper edge of its bucket, so never
    /// below the true value); 0 when empty.
    package func percentile(_ fraction: Double) -> Int64 {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((Double(count) * min(1, max(0, fraction))).rounded(.up)))
        var seen = 0
        for (index, n) in counts.enumerated() where n > 0 {
            seen += Int(n)
            if seen >= rank { return min(maximum, Self.upperBound(of: index)) }
        }
        return maximum
    }

    /// Mean delay, µs.
    package var mean: Double { count == 0 ? 0 : sum / Double(count) }

    // MARK: - Buckets

    /// Values below 32 map to themselves; above, each power of two [2^k, 2^(k+1)) splits into 16.
    static func bucket(of value: Int64) -> Int {
        if value < linearLimit { return Int(value) }
        let power = 63 - value.leadingZeroBitCount          // ≥ 5
        let sub = Int(value >> (power - 4)) & (subBuckets - 1)
        return min(bucketCount - 1, 32 + (power - 5) * subBuckets + sub)
    }

    /// The largest value that falls into bucket `index`.
    static func upperBound(of index: Int) -> Int64 {
        if index < Int(linearLimit) { return Int64(index) }
        let power = (index - 32) / subBuckets + 5
        let sub = Int64((index - 32) % subBuckets)
        let width = Int64(1) << (power - 4)
        return (Int64(1) << power) + (sub + 1) * width - 1
    }
}
