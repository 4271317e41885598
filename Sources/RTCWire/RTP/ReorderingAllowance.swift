/// How long a missing packet may be out of order before it is taken for lost, learnt from the
/// reordering one stream actually shows (issue 26): `NackGenerator` requests a missing number only
/// once it is overdue, `time` after the packet that revealed the gap, or once more than `packets`
/// newer numbers have arrived, whichever comes first. A NACK sent for a packet that was only late
/// makes the sender resend a copy: it costs the link its size, and SRTP's replay check (RFC 3711
/// §3.3.2) drops it on arrival.
///
/// Each packet that fills a gap within `cap` of the gap being seen is a sample: how long after, and
/// how many newer numbers had arrived before it (Chromium's NackRequester keeps the same packet
/// histogram). The allowance is the 95th percentile of the last `window` samples: time rounded up
/// to the bucket's end and kept within `floor`…`cap`. Later arrivals are resends or packets too
/// late to wait for and teach nothing. With no sample yet, `packets` is 0: a gap is requested as
/// soon as it is seen, as without the allowance, until the stream has shown reordering.
///
/// Storage is fixed at init: a sample costs a ring slot and two histogram counts, no allocation.
public struct ReorderingAllowance: Sendable {
    /// The least time allowance once reordering has been seen, µs.
    public let floor: Int64
    /// The most, µs: well under the retry interval, so a lost packet is still asked for in time.
    public let cap: Int64
    /// How many recent samples the percentile is taken over.
    public static let window = 64
    /// Width of a time bucket, µs.
    public static let bucketWidth: Int64 = 500
    /// Packet distances above this count as this.
    public static let maxPackets = 63
    /// The share of samples the allowance covers.
    public static let percentile = 0.95

    /// How long after a gap is seen its numbers are requested, µs.
    public private(set) var time: Int64
    /// How many newer numbers may arrive before a missing one is requested.
    public private(set) var packets = 0
    /// Samples taken so far (the percentile uses the last `window`).
    public private(set) var samples = 0

    private var ring: [(bucket: UInt8, packets: UInt8)]
    private var timeHistogram: [UInt16]
    private var packetHistogram: [UInt16]

    /// - Parameters:
    ///   - floor: the least time allowance once reordering has been seen, µs.
    ///   - cap: the most, µs (at least `floor`).
    public init(floor: Int64 = 2_000, cap: Int64 = 10_000) {
        precondition(floor >= 0 && cap >= floor && cap / Self.bucketWidth < 255, "allowance bounds out of range")
        self.floor = floor
        self.cap = cap
        time = floor
        ring = Array(repeating: (0, 0), count: Self.window)
        timeHistogram = Array(repeating: 0, count: Int(cap / Self.bucketWidth) + 1)
        packetHistogram = Array(repeating: 0, count: Self.maxPackets + 1)
    }

    /// Whether a number missing since `since`, with `newer` newer numbers arrived, is overdue at `now`.
    @inline(__always)
    public func isOverdue(since: Int64, newer: Int, now: Int64) -> Bool {
        newer > packets || now - since >= time
    }

    /// A missing packet arrived `lateness` µs after its gap was seen, `newer` newer numbers after
    /// it. Returns false (no sample) when it came later than `cap`.
    @discardableResult
    public mutating func observe(lateness: Int64, newer: Int) -> Bool {
        guard lateness >= 0, lateness <= cap else { return false }
        let slot = samples % Self.window
        if samples >= Self.window {
            let old = ring[slot]
            timeHistogram[Int(old.bucket)] -= 1
            packetHistogram[Int(old.packets)] -= 1
        }
        let sample = (bucket: UInt8(lateness / Self.bucketWidth), packets: UInt8(min(max(newer, 0), Self.maxPackets)))
        ring[slot] = sample
        timeHistogram[Int(sample.bucket)] += 1
        packetHistogram[Int(sample.packets)] += 1
        samples += 1
        let count = min(samples, Self.window)
        let rank = Int((Double(count) * Self.percentile).rounded(.up))
        let bucket = Self.rankIndex(rank, in: timeHistogram)
        time = min(cap, max(floor, Int64(bucket + 1) * Self.bucketWidth))
        packets = Self.rankIndex(rank, in: packetHistogram)
        return true
    }

    /// The index of the bucket holding the `rank`-th smallest sample (1-based).
    private static func rankIndex(_ rank: Int, in histogram: [UInt16]) -> Int {
        var seen = 0
        for index in histogram.indices {
            seen += Int(histogram[index])
            if seen >= rank { return index }
        }
        return histogram.count - 1
    }
}
