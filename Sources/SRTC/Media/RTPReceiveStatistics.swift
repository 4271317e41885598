import RTCWire

/// Reception statistics of one incoming RTP stream, as RFC 3550 §6.4.1 and Appendix A.3/A.8
/// define them for receiver reports: extended highest sequence number, cumulative and
/// interval loss, and interarrival jitter.
package struct RTPReceiveStatistics: Sendable {
    let clockRate: Double
    private var unwrapper = WrapAroundUnwrapper<UInt16>()
    private var base: Int64?
    package private(set) var highest: Int64 = 0
    package private(set) var received = 0
    package private(set) var bytes = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior = 0
    /// Interarrival jitter in timestamp units (RFC 3550 §A.8), smoothed by 1/16.
    private(set) var jitter: Double = 0
    private var lastTransit: Double?
    /// Middle 32 bits of the last sender report's NTP time and when it arrived (seconds).
    private var lastSR: (middle: UInt32, arrival: Double)?

    package init(clockRate: UInt32) {
        self.clockRate = Double(clockRate)
    }

    /// Records one packet that arrived at `arrival` seconds.
    package mutating func record(sequence: UInt16, timestamp: UInt32, size: Int, arrival: Double) {
        let extended = unwrapper.unwrap(sequence)
        if base == nil {
            base = extended
            highest = extended
        } else if extended > highest {
            highest = extended
        }
        received += 1
        bytes += size
        // D(i-1, i) = (Rj - Ri) - (Sj - Si); J += (|D| - J) / 16 (RFC 3550 §6.4.1).
        let transit = arrival * clockRate - Double(timestamp)
        if let last = lastTransit {
            var d = abs(transit - last)
            if d > 1e9 { d = 0 } // a timestamp wrap, not jitter
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
    }

    /// Packets expected from the first to the highest sequence number.
    package var expected: Int64 { base.map { highest - $0 + 1 } ?? 0 }
    /// Cumulative packets lost (may be negative with duplicates, RFC 3550 §A.3).
    package var lost: Int64 { expected - Int64(received) }

    /// Notes a sender report of this stream's sender.
    package mutating func senderReportArrived(_ ntp: NTPTime, at arrival: Double) {
        lastSR = (ntp.middle32, arrival)
    }

    /// The report block for this stream, and the start of a new interval (RFC 3550 §A.3).
    package mutating func receptionReport(ssrc: UInt32, now: Double) -> ReceptionReport {
        let expectedInterval = expected - expectedPrior
        let receivedInterval = Int64(received - receivedPrior)
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval <= 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var lsr: UInt32 = 0, dlsr: UInt32 = 0
        if let sr = lastSR {
            lsr = sr.middle
            dlsr = UInt32(max(0, min(Double(UInt32.max), (now - sr.arrival) * 65_536)))
        }
        return ReceptionReport(ssrc: ssrc, fractionLost: fraction, totalLost: Int32(clamping: lost),
                               lastSequenceNumber: UInt32(truncatingIfNeeded: highest), jitter: UInt32(min(Double(UInt32.max), jitter)),
                               lastSenderReport: lsr, delay: dlsr)
    }
}
