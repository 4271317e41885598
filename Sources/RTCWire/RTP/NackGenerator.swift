/// Decides which missing packets of one incoming stream to NACK upstream (RFC 4585 §6.2.1) and
/// when: a gap in sequence numbers adds its numbers to a list; each is requested on the next
/// poll, then again every round-trip time (at least `minRetryInterval`), at most `maxRetries`
/// times; a packet that arrives (late or retransmitted) leaves the list. When the list would
/// overflow, or a number runs out of retries, the stream asks for a key frame instead, since
/// the decoder cannot recover without it.
///
/// The SFU keeps one per incoming stream that negotiated NACK; the SDK one per received audio
/// stream (video has its jitter buffer's own list).
///
/// Storage is reserved up front; steady-state updates do not allocate.
public struct NackGenerator: Sendable {
    public struct Entry: Sendable, Equatable {
        public var sequenceNumber: UInt16
        public var firstMissed: Int64
        /// When last requested; nil before the first request.
        public var lastRequested: Int64?
        public var retries: Int
    }

    public let maxEntries: Int
    public let maxRetries: Int
    public let minRetryInterval: Int64
    public private(set) var entries: [Entry] = []
    private var started = false
    private var highest: UInt16 = 0

    public init(maxEntries: Int = 256, maxRetries: Int = 10, minRetryInterval: Int64 = 20_000) {
        self.maxEntries = maxEntries
        self.maxRetries = maxRetries
        self.minRetryInterval = minRetryInterval
        entries.reserveCapacity(maxEntries)
    }

    /// Sequence numbers waiting for a packet.
    public var missing: [UInt16] { entries.map(\.sequenceNumber) }

    /// Records a received packet.
    /// - Returns: true when the gap was too large to NACK and a key frame should be requested.
    public mutating func received(_ seq: UInt16, now: Int64) -> Bool {
        guard started else {
            started = true
            highest = seq
            return false
        }
        guard SequenceNumber.isNewer(seq, than: highest) else {
            // Late or retransmitted: no longer missing.
            if let index = entries.firstIndex(where: { $0.sequenceNumber == seq }) { entries.remove(at: index) }
            return false
        }
        let gap = SequenceNumber.distance(from: highest, to: seq) - 1
        highest = seq
        guard gap > 0 else { return false }
        if gap > maxEntries {
            entries.removeAll(keepingCapacity: true)
            return true
        }
        var overflowed = false
        var missing = seq &- UInt16(gap)
        while missing != seq {
            if entries.count == maxEntries {
                entries.removeFirst()
                overflowed = true
            }
            entries.append(Entry(sequenceNumber: missing, firstMissed: now, lastRequested: nil, retries: 0))
            missing &+= 1
        }
        return overflowed
    }

    /// Appends to `due` the numbers to NACK now and marks them requested.
    /// - Parameter rtt: the current round-trip estimate in µs (0 when unknown).
    /// - Returns: true when some number ran out of retries (ask for a key frame).
    public mutating func poll(now: Int64, rtt: Int64, into due: inout [UInt16]) -> Bool {
        let interval = max(minRetryInterval, rtt)
        var exhausted = false
        var index = 0
        while index < entries.count {
            if entries[index].retries >= maxRetries {
                entries.remove(at: index)
                exhausted = true
                continue
            }
            if let last = entries[index].lastRequested, now - last < interval {
                index += 1
                continue
            }
            entries[index].lastRequested = now
            entries[index].retries += 1
            due.append(entries[index].sequenceNumber)
            index += 1
        }
        return exhausted
    }

    /// A key frame starting at `seq` arrived: packets before it are no longer needed to decode.
    public mutating func keyFrameReceived(at seq: UInt16) {
        entries.removeAll { SequenceNumber.isNewer(seq, than: $0.sequenceNumber) }
    }

    /// Forgets every missing number (on a key frame request that makes them useless, or a restart).
    public mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        started = false
    }
}
