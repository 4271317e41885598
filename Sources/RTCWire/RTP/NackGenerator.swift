/// The one receive-side loss tracker (issue 29): finds the missing packets of one incoming stream
/// and decides when to NACK each (RFC 4585 §6.2.1, generic NACK) and when to stop and ask for a
/// key frame instead. Its rules:
///
/// - A gap in sequence numbers (wrap-aware, RFC 3550 §A.1) adds its numbers to a list, oldest
///   first; a packet that arrives late or retransmitted leaves it.
/// - A number is first requested by the first `poll` once it is overdue for reordering
///   (`reordering`, issue 26): its gap was seen `reordering.time` ago, or more than
///   `reordering.packets` newer numbers have arrived. Both are learnt from how late this stream's
///   out-of-order packets come, within a floor and a cap of at most half `minRetryInterval`; a
///   stream that has shown no reordering has its gaps requested at once. A packet rebuilt from
///   redundancy instead (`recovered`) leaves the list without teaching anything.
/// - It is requested again once the round-trip time has passed (at least `minRetryInterval`), at
///   most `maxRetries` times; after that it is given up.
/// - The decoder cannot recover what is given up, so the tracker asks for a key frame (RFC 4585
///   §6.3.1) when a number runs out of retries, when one has been missing longer than `maxAge`
///   (a gap too old to repair in time), or when a gap would not fit in the list.
/// - A key frame makes older numbers useless (`keyFrameReceived`); a buffer that gives packets up
///   itself drops them with `forget(before:)`.
///
/// Users: the SFU, one per incoming stream that negotiated NACK (paced by the publisher's RTT);
/// the SDK, one per received audio stream (with no reordering allowance, `maxReorderingDelay: 0`)
/// and one inside each video jitter buffer
/// (`VideoJitterBuffer`, so also the egress worker and the soak receiver, which receive through it).
///
/// Storage is reserved up front and the list stays sorted: per-packet updates do not allocate,
/// and finding a number is a binary search.
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
    /// How long a number may stay missing before it is given up (µs); nil: no limit.
    public let maxAge: Int64?
    /// Missing numbers, oldest first (wrap-aware; they span less than half the number space).
    public private(set) var entries: [Entry] = []
    /// How long a missing number waits for a late packet before its first request.
    public private(set) var reordering: ReorderingAllowance
    private var started = false
    private var highest: UInt16 = 0

    /// - Parameters:
    ///   - maxReorderingDelay: the most a first request waits for reordering, µs; kept to at most
    ///     half `minRetryInterval` (and the floor, 2 ms, to at most this). 0: every gap is
    ///     requested at once.
    public init(maxEntries: Int = 256, maxRetries: Int = 10, minRetryInterval: Int64 = 20_000, maxAge: Int64? = nil,
                maxReorderingDelay: Int64 = 10_000) {
        precondition(maxEntries > 0 && maxEntries <= 0x8000, "maxEntries out of range")
        self.maxEntries = maxEntries
        self.maxRetries = maxRetries
        self.minRetryInterval = minRetryInterval
        self.maxAge = maxAge
        let cap = max(0, min(maxReorderingDelay, minRetryInterval / 2))
        reordering = ReorderingAllowance(floor: min(2_000, cap), cap: cap)
        entries.reserveCapacity(maxEntries)
    }

    /// Sequence numbers waiting for a packet (allocates: for checks and tests).
    public var missing: [UInt16] { entries.map(\.sequenceNumber) }

    /// Whether `seq` is missing and has been requested at least once.
    public func wasRequested(_ seq: UInt16) -> Bool {
        guard let index = index(of: seq) else { return false }
        return entries[index].lastRequested != nil
    }

    /// Records a received packet.
    /// - Returns: true when the gap was too large to NACK and a key frame should be requested.
    public mutating func received(_ seq: UInt16, now: Int64) -> Bool {
        arrived(seq, now: now, reordered: true)
    }

    /// Records a packet rebuilt from redundancy (RED, RFC 2198) rather than received: it is no
    /// longer missing, but how late it came says nothing about reordering.
    /// - Returns: true when the gap was too large to NACK and a key frame should be requested.
    public mutating func recovered(_ seq: UInt16, now: Int64) -> Bool {
        arrived(seq, now: now, reordered: false)
    }

    private mutating func arrived(_ seq: UInt16, now: Int64, reordered: Bool) -> Bool {
        guard started else {
            started = true
            highest = seq
            return false
        }
        guard SequenceNumber.isNewer(seq, than: highest) else {
            // Late or retransmitted: no longer missing. Within the cap it was reordering (a resend
            // takes a round trip): how late it came, and after how many newer numbers, is a sample.
            if let index = index(of: seq) {
                if reordered {
                    reordering.observe(lateness: now - entries[index].firstMissed, newer: SequenceNumber.distance(from: seq, to: highest))
                }
                entries.remove(at: index)
            }
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

    /// Records as missing the numbers after `first` and before `end`, which come before every
    /// listed one: a packet older than the first one received arrived (reordering at the start
    /// of a stream), and what lies between the two is now known to be missing. When they do not
    /// all fit in the list, the newest are recorded (the oldest would be the first given up).
    public mutating func markMissing(after first: UInt16, before end: UInt16, now: Int64) {
        let count = SequenceNumber.distance(from: first, to: end) - 1
        guard count > 0 else { return }
        let room = min(count, maxEntries - entries.count)
        guard room > 0 else { return }
        // Oldest first, in front of the list: the list stays sorted.
        entries.insert(contentsOf: repeatElement(Entry(sequenceNumber: first, firstMissed: now, lastRequested: nil, retries: 0),
                                                 count: room), at: 0)
        for offset in 0 ..< room { entries[offset].sequenceNumber = end &- UInt16(room - offset) }
    }

    /// Appends to `due` the numbers to NACK now (overdue for reordering, or due for a retry) and
    /// marks them requested.
    /// - Parameter rtt: the current round-trip estimate in µs (0 when unknown).
    /// - Returns: true when some number was given up (out of retries, or missing longer than
    ///   `maxAge`): ask for a key frame.
    public mutating func poll(now: Int64, rtt: Int64, into due: inout [UInt16]) -> Bool {
        let interval = max(minRetryInterval, rtt)
        var gaveUp = false
        var index = 0
        while index < entries.count {
            let entry = entries[index]
            if entry.retries >= maxRetries || maxAge.map({ now - entry.firstMissed > $0 }) == true {
                entries.remove(at: index)
                gaveUp = true
                continue
            }
            if let last = entry.lastRequested, now - last < interval {
                index += 1
                continue
            }
            if entry.lastRequested == nil, !reordering.isOverdue(since: entry.firstMissed,
                                                                 newer: SequenceNumber.distance(from: entry.sequenceNumber, to: highest), now: now) {
                index += 1  // it may still come, late
                continue
            }
            entries[index].lastRequested = now
            entries[index].retries += 1
            due.append(entry.sequenceNumber)
            index += 1
        }
        return gaveUp
    }

    /// A key frame starting at `seq` arrived: packets before it are no longer needed to decode.
    public mutating func keyFrameReceived(at seq: UInt16) {
        forget(before: seq)
    }

    /// Stops asking for every number older than `seq` (its owner gave those packets up).
    public mutating func forget(before seq: UInt16) {
        guard let first = entries.first, SequenceNumber.isNewer(seq, than: first.sequenceNumber) else { return }
        entries.removeSubrange(0 ..< lowerBound(seq))
    }

    /// Forgets every missing number (on a key frame request that makes them useless, or a restart).
    public mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        started = false
    }

    // MARK: - Sorted list

    /// The index of the first entry not older than `seq` (entries.count when all are older).
    private func lowerBound(_ seq: UInt16) -> Int {
        guard let anchor = entries.first?.sequenceNumber else { return 0 }
        let target = SequenceNumber.distance(from: anchor, to: seq)
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if SequenceNumber.distance(from: anchor, to: entries[middle].sequenceNumber) < target { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func index(of seq: UInt16) -> Int? {
        let index = lowerBound(seq)
        return index < entries.count && entries[index].sequenceNumber == seq ? index : nil
    }
}
