import RTCWire

/// Reception statistics of one incoming RTP stream, as RFC 3550 Appendix A computes them:
/// the extended highest sequence number with its wrap count (§A.1), expected and lost packets and
/// the fraction lost per report interval (§A.3), and the interarrival jitter (§A.8).
///
/// SRTP has already authenticated every packet, so the first one is trusted (no probation).
struct ReceiveStatistics: Sendable {
    /// §A.1: a jump this far ahead is taken as a gap, not a restart.
    static let maxDropout: UInt16 = 3000
    /// §A.1: this far behind is a late or duplicate packet.
    static let maxMisorder: UInt16 = 100

    let clockRate: UInt32

    // MARK: - §A.1 state

    private(set) var started = false
    /// Highest sequence number seen.
    private(set) var maxSequence: UInt16 = 0
    /// Wraps of the sequence number, times 2^16.
    private(set) var cycles: UInt32 = 0
    private var baseSequence: UInt32 = 0
    private var badSequence: UInt32 = 0x1_0001
    /// Packets received (duplicates included, as §A.3 notes).
    private(set) var packetsReceived: UInt64 = 0
    /// Payload bytes plus headers received.
    private(set) var bytesReceived: UInt64 = 0

    // MARK: - §A.3 / §A.8 state

    private var expectedPrior: UInt64 = 0
    private var receivedPrior: UInt64 = 0
    /// Interarrival jitter in timestamp units (§A.8), kept unrounded.
    private(set) var jitter: Double = 0
    private var lastTransit: Int64 = 0
    private var lastTimestamp: UInt32 = 0
    private var hasTransit = false

    init(clockRate: UInt32) { self.clockRate = clockRate }

    // MARK: - Updating

    /// Counts one packet. Returns false when §A.1 judges it a jump to be confirmed (a source
    /// restart) rather than part of the stream.
    @discardableResult
    mutating func update(sequenceNumber seq: UInt16, timestamp: UInt32, arrivalMicros: Int64, size: Int) -> Bool {
        bytesReceived &+= UInt64(size)
        guard started else {
            restart(at: seq)
            started = true
            packetsReceived &+= 1
            updateJitter(timestamp: timestamp, arrivalMicros: arrivalMicros)
            return true
        }
        let delta = seq &- maxSequence
        if delta == 0 {
            // Duplicate.
        } else if delta < Self.maxDropout {
            if seq < maxSequence { cycles &+= 0x1_0000 }
            maxSequence = seq
            updateJitter(timestamp: timestamp, arrivalMicros: arrivalMicros)
        } else if delta <= UInt16.max - Self.maxMisorder {
            // A big jump: restart only when the next packet confirms it (§A.1).
            if UInt32(seq) == badSequence {
                restart(at: seq)
            } else {
                badSequence = (UInt32(seq) + 1) & 0xFFFF
                return false
            }
        }
        // Else: late or duplicate within the misorder window; counted, no state change.
        packetsReceived &+= 1
        return true
    }

    private mutating func restart(at seq: UInt16) {
        baseSequence = UInt32(seq)
        maxSequence = seq
        badSequence = 0x1_0001
        cycles = 0
        packetsReceived = 0
        expectedPrior = 0
        receivedPrior = 0
    }

    /// §A.8, on packets that carry a new timestamp in order (as libwebrtc does, so the packets of
    /// one video frame do not count as jitter).
    private mutating func updateJitter(timestamp: UInt32, arrivalMicros: Int64) {
        // Split so that years of monotonic microseconds times 90 kHz cannot overflow.
        let rate = Int64(clockRate)
        let arrivalTicks = (arrivalMicros / 1_000_000) &* rate &+ (arrivalMicros % 1_000_000) * rate / 1_000_000
        let transit = arrivalTicks &- Int64(timestamp)
        if hasTransit {
            guard timestamp != lastTimestamp else { return }
            guard RTPTimestamp.isNewer(timestamp, than: lastTimestamp) else { return }
            let d = Double((transit &- lastTransit).magnitude)
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
        lastTimestamp = timestamp
        hasTransit = true
    }

    // MARK: - Reading

    /// Cycles and highest sequence number (the report block field).
    var extendedHighestSequence: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected since the first (§A.3).
    var packetsExpected: UInt64 {
        guard started else { return 0 }
        return UInt64(cycles) + UInt64(maxSequence) + 1 - UInt64(baseSequence)
    }

    /// Cumulative packets lost (negative with duplicates), clamped to 24 signed bits by the report.
    var cumulativeLost: Int64 { Int64(packetsExpected) - Int64(packetsReceived) }

    /// Jitter in milliseconds.
    var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    /// The fraction lost since the previous call, in 1/256 (§A.3), and starts a new interval.
    mutating func takeFractionLost() -> UInt8 {
        let expected = packetsExpected
        let expectedInterval = Int64(expected) - Int64(expectedPrior)
        let receivedInterval = Int64(packetsReceived) - Int64(receivedPrior)
        expectedPrior = expected
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        guard expectedInterval > 0, lostInterval > 0 else { return 0 }
        return UInt8(min(255, (lostInterval << 8) / expectedInterval))
    }
}
