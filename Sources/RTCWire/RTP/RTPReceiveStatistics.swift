/// Reception statistics of one incoming RTP stream, as RFC 3550 Appendix A computes them: the
/// extended highest sequence number with its wrap count (§A.1), expected and lost packets and the
/// fraction lost per report interval (§A.3), the interarrival jitter (§A.8), and the LSR/DLSR of
/// the sender's last report (§6.4.1). The one copy for the SFU (per producer stream, on its I/O
/// thread, allocation-free) and the SDK (per subscribed stream).
///
/// SRTP has already authenticated every packet, so the first one is trusted (no probation).
public struct RTPReceiveStatistics: Sendable {
    /// §A.1: a jump this far ahead is taken as a gap, not a restart.
    public static let maxDropout: UInt16 = 3000
    /// §A.1: this far behind is a late or duplicate packet.
    public static let maxMisorder: UInt16 = 100

    public let clockRate: UInt32

    // MARK: - §A.1 state

    @usableFromInline var hasStarted = false
    @usableFromInline var highest: UInt16 = 0
    @usableFromInline var wraps: UInt32 = 0
    @usableFromInline var baseSequence: UInt32 = 0
    @usableFromInline var badSequence: UInt32 = 0x1_0001
    @usableFromInline var received: UInt64 = 0
    @usableFromInline var bytes: UInt64 = 0

    // MARK: - §A.3 / §A.8 / §6.4.1 state

    @usableFromInline var expectedPrior: UInt64 = 0
    @usableFromInline var receivedPrior: UInt64 = 0
    @usableFromInline var smoothedJitter: Double = 0
    @usableFromInline var lastTransit: Int64 = 0
    @usableFromInline var lastTimestamp: UInt32 = 0
    @usableFromInline var hasTransit = false
    /// The middle 32 bits of the last sender report's NTP time and its arrival (µs).
    @usableFromInline var lastSenderReport: (middle: UInt32, arrivalMicros: Int64)?

    public init(clockRate: UInt32) { self.clockRate = clockRate }

    // MARK: - Updating

    /// Counts one packet that arrived at `arrivalMicros` (any monotonic clock, µs). Returns false
    /// when §A.1 judges it a jump to be confirmed (a source restart) rather than part of the stream.
    @inlinable @discardableResult
    public mutating func update(sequenceNumber seq: UInt16, timestamp: UInt32, arrivalMicros: Int64, size: Int) -> Bool {
        bytes &+= UInt64(truncatingIfNeeded: size)
        guard hasStarted else {
            restart(at: seq)
            hasStarted = true
            received &+= 1
            updateJitter(timestamp: timestamp, arrivalMicros: arrivalMicros)
            return true
        }
        let delta = seq &- highest
        if delta == 0 {
            // Duplicate.
        } else if delta < Self.maxDropout {
            if seq < highest { wraps &+= 0x1_0000 }
            highest = seq
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
        received &+= 1
        return true
    }

    @usableFromInline
    mutating func restart(at seq: UInt16) {
        baseSequence = UInt32(seq)
        highest = seq
        badSequence = 0x1_0001
        wraps = 0
        received = 0
        expectedPrior = 0
        receivedPrior = 0
    }

    /// §A.8, on packets that carry a new timestamp in order (as libwebrtc does, so the packets of
    /// one video frame do not count as jitter).
    @inlinable
    mutating func updateJitter(timestamp: UInt32, arrivalMicros: Int64) {
        // Split so that years of monotonic microseconds times 90 kHz cannot overflow.
        let rate = Int64(clockRate)
        let arrivalTicks = (arrivalMicros / 1_000_000) &* rate &+ (arrivalMicros % 1_000_000) &* rate / 1_000_000
        let transit = arrivalTicks &- Int64(timestamp)
        if hasTransit {
            guard timestamp != lastTimestamp else { return }
            guard RTPTimestamp.isNewer(timestamp, than: lastTimestamp) else { return }
            let d = Double((transit &- lastTransit).magnitude)
            smoothedJitter += (d - smoothedJitter) / 16
        }
        lastTransit = transit
        lastTimestamp = timestamp
        hasTransit = true
    }

    /// Notes a sender report from this stream's source that arrived at `arrivalMicros` (the
    /// clock `makeReportBlock` is given).
    public mutating func senderReportArrived(ntp: NTPTime, arrivalMicros: Int64) {
        lastSenderReport = (ntp.middle32, arrivalMicros)
    }

    // MARK: - Reading

    /// A packet has been counted.
    public var started: Bool { hasStarted }
    /// Highest sequence number seen.
    public var maxSequence: UInt16 { highest }
    /// Wraps of the sequence number, times 2^16.
    public var cycles: UInt32 { wraps }
    /// Packets received (duplicates included, as §A.3 notes).
    public var packetsReceived: UInt64 { received }
    /// Bytes of the packets received, headers included.
    public var bytesReceived: UInt64 { bytes }
    /// Interarrival jitter in timestamp units (§A.8), kept unrounded.
    public var jitter: Double { smoothedJitter }

    /// Cycles and highest sequence number (the report block field).
    public var extendedHighestSequence: UInt32 { wraps &+ UInt32(highest) }

    /// Packets expected since the first (§A.3).
    public var packetsExpected: UInt64 {
        guard hasStarted else { return 0 }
        return UInt64(wraps) + UInt64(highest) + 1 - UInt64(baseSequence)
    }

    /// Cumulative packets lost (negative with duplicates); the report clamps it to 24 signed bits.
    public var cumulativeLost: Int64 { Int64(packetsExpected) - Int64(received) }

    /// Jitter in milliseconds.
    public var jitterMilliseconds: Double { smoothedJitter * 1000 / Double(clockRate) }

    /// The fraction lost since the previous call, in 1/256 (§A.3), and starts a new interval.
    public mutating func takeFractionLost() -> UInt8 {
        let expected = packetsExpected
        let expectedInterval = Int64(expected) - Int64(expectedPrior)
        let receivedInterval = Int64(received) - Int64(receivedPrior)
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        guard expectedInterval > 0, lostInterval > 0 else { return 0 }
        return UInt8(min(255, (lostInterval << 8) / expectedInterval))
    }

    /// The report block for this stream (RFC 3550 §6.4.1), closing the fraction-lost interval.
    /// LSR and DLSR come from the last `senderReportArrived` (zero before any).
    public mutating func makeReportBlock(ssrc: UInt32, nowMicros: Int64) -> ReceptionReport {
        let fraction = takeFractionLost()
        let lost = max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))
        var lsr: UInt32 = 0, dlsr: UInt32 = 0
        if let sr = lastSenderReport {
            lsr = sr.middle
            // DLSR in 1/65536 s.
            dlsr = UInt32(truncatingIfNeeded: min(Int64(UInt32.max), (max(0, nowMicros &- sr.arrivalMicros) << 16) / 1_000_000))
        }
        return ReceptionReport(ssrc: ssrc, fractionLost: fraction, totalLost: Int32(lost), lastSequenceNumber: extendedHighestSequence,
                               jitter: UInt32(min(smoothedJitter, 4_294_967_295).rounded(.down)), lastSenderReport: lsr, delay: dlsr)
    }
}
