import RTCWire

/// Decides which missing packets of one incoming stream to NACK upstream (RFC 4585 §6.2.1) and
/// when: a gap in sequence numbers adds its numbers to a list; each is requested on the next
/// poll, then again every round-trip time (at least `minRetryInterval`), at most `maxRetries`
/// times; a packet that arrives (late or retransmitted) leaves the list. When the list would
/// overflow, or a number runs out of retries, the stream asks for a key frame instead, since
/// the decoder cannot recover without it.
///
/// Storage is reserved up front; steady-state updates do not allocate.
struct NackGenerator: Sendable {
    struct Entry: Sendable, Equatable {
        var sequenceNumber: UInt16
        var firstMissed: Int64
        /// When last requested; nil before the first request.
        var lastRequested: Int64?
        var retries: Int
    }

    let maxEntries: Int
    let maxRetries: Int
    let minRetryInterval: Int64
    private(set) var entries: [Entry] = []
    private var started = false
    private var highest: UInt16 = 0

    init(maxEntries: Int = 256, maxRetries: Int = 10, minRetryInterval: Int64 = 20_000) {
        self.maxEntries = maxEntries
        self.maxRetries = maxRetries
        self.minRetryInterval = minRetryInterval
        entries.reserveCapacity(maxEntries)
    }

    /// Sequence numbers waiting for a packet.
    var missing: [UInt16] { entries.map(\.sequenceNumber) }

    /// Records a received packet.
    /// - Returns: true when the gap was too large to NACK and a key frame should be requested.
    mutating func received(_ seq: UInt16, now: Int64) -> Bool {
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
    mutating func poll(now: Int64, rtt: Int64, into due: inout [UInt16]) -> Bool {
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
    mutating func keyFrameReceived(at seq: UInt16) {
        entries.removeAll { SequenceNumber.isNewer(seq, than: $0.sequenceNumber) }
    }

    /// Forgets every missing number (on a key frame request that makes them useless, or a restart).
    mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        started = false
    }
}
