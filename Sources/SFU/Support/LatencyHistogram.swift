/// Arrival-to-send times of forwarded packets, in 1 µs buckets up to 65 ms, for benchmarks.
/// Recording is one increment; no allocation. I/O thread only.
final class LatencyHistogram {
    private var buckets = [UInt64](repeating: 0, count: 65_536)
    private(set) var count: UInt64 = 0

    @inline(__always)
    func record(_ micros: Int64) {
        buckets[Int(min(max(micros, 0), 65_535))] &+= 1
        count &+= 1
    }

    /// The value at `fraction` (0…1) of the recorded samples, µs.
    func percentile(_ fraction: Double) -> Int {
        guard count > 0 else { return 0 }
        let rank = UInt64((Double(count) * fraction).rounded(.up))
        var seen: UInt64 = 0
        for (value, n) in buckets.enumerated() {
            seen += n
            if seen >= max(1, rank) { return value }
        }
        return buckets.count - 1
    }

    func reset() {
        buckets = [UInt64](repeating: 0, count: 65_536)
        count = 0
    }
}

/// A summary of forwarding latency.
public struct ForwardingLatency: Hashable, Sendable {
    /// Packets measured.
    public var samples: UInt64
    public var p50Micros: Int
    public var p99Micros: Int
}
