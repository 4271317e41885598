/// Whether a probe toward a subscriber that sends REMB and no transport-cc feedback (aiortc, older
/// libwebrtc) shows that the link carries what the probe sent.
///
/// Such a receiver's REMB does not show a wider link in time: it climbs by its own AIMD (aiortc's
/// `AimdRateControl`, after GCC's, draft-ietf-rmcat-gcc-02 §5.5: after a decrease it adds about
/// 20 kbit/s a second near the rate it fell from, else 8 % a second, never above 1.5 times what it
/// receives), so from the small layer's 250 kbit/s to the big layer's 650 it takes 12–25 s whatever
/// the link. What the receiver does report at once is trouble: its delay-based detector *lowers* the
/// REMB when the queueing delay grows, and its receiver reports (RFC 3550 §6.4.2) count the loss of
/// a queue that overflowed and, through LSR/DLSR (§6.4.1), the round trip through that queue. A
/// probe that ran `holdTime` at its rate with none of those proves the rate it sent, as a
/// transport-cc probe proves its delivered rate:
///
/// - no REMB lower than `rembFall` times the highest since (and at) the probe's start;
/// - a receiver report whose interval lies within the probe (the second one from a stream since
///   the start), every such report under `maxLoss`;
/// - NACKs (RFC 4585 §6.2.1) for under `maxLoss` of the packets sent since the start: a receiver
///   NACKs a gap as soon as the next packet shows it, a report comes 0.5–1.5 s later, and each
///   padding packet lost meanwhile is a gap in the consumer's sequence (`Consumer.resendPadding`);
/// - no report's round trip more than `maxRoundTripRise` above the transport's least recent one.
struct REMBProbeEvidence: Sendable, Equatable {
    struct Configuration: Sendable, Equatable {
        /// A probe proves its rate no sooner than this after its start, µs: a 200 ms queue at a
        /// link's rate fills within about 0.3 s of a probe at twice that rate, and a receiver's
        /// reports come every 0.5–1.5 s (aiortc) or 1 s.
        var holdTime: Int64 = 1_500_000
        var maxLoss = 0.02
        var maxRoundTripRise: Int64 = 30_000
        var rembFall = 0.97
    }

    let configuration: Configuration
    let start: Int64
    /// `TransportCounters.bytesSent` at the start: what the probe sent is measured from it.
    let bytesSentAtStart: Int
    /// `TransportCounters.rtpSent` at the start: NACKed numbers are a share of the packets since.
    let packetsSentAtStart: Int
    /// Numbers NACKed for the first time since the start.
    private(set) var nacked = 0
    /// The least round trip the transport saw before the probe, µs; nil if none yet.
    let baseRoundTrip: Int64?
    private var highestREMB: Double?
    /// When the last report of each stream came since the start (a stream's next report covers
    /// only the probe's time).
    private var reportTimes: [UInt32: Int64] = [:]
    private(set) var coveredReports = 0
    /// How far the round trip of reports since the start rose above `baseRoundTrip`, µs.
    private(set) var roundTripRise: Int64 = 0
    /// Why the probe shows no capacity: "remb", "loss" or "delay"; nil while it may.
    private(set) var failure: String?

    /// - Parameter remb: the receiver's REMB when the probe starts: a fall from it counts (a
    ///   probe into a full queue brings the next REMB down, after which its own padding raises it).
    init(start: Int64, bytesSent: Int, packetsSent: Int = 0, remb: Double?, baseRoundTrip: Int64?,
         configuration: Configuration = Configuration()) {
        self.start = start
        highestREMB = remb
        self.bytesSentAtStart = bytesSent
        self.packetsSentAtStart = packetsSent
        self.baseRoundTrip = baseRoundTrip
        self.configuration = configuration
    }

    /// A REMB during the probe: a fall is the receiver's delay-based detector seeing a queue.
    mutating func onREMB(_ bitrate: Double) {
        if let highest = highestREMB, bitrate < highest * configuration.rembFall { failure = failure ?? "remb" }
        highestREMB = max(highestREMB ?? bitrate, bitrate)
    }

    /// A report block on one of the transport's streams at `now`: its fraction lost (0–1) and the
    /// round trip computed from it, if its LSR matched a sender report of ours.
    mutating func onReport(ssrc: UInt32, fractionLost: Double, roundTrip: Int64?, now: Int64) {
        if let roundTrip, let base = baseRoundTrip {
            roundTripRise = max(roundTripRise, roundTrip - base)
            if roundTrip - base > configuration.maxRoundTripRise { failure = failure ?? "delay" }
        }
        defer { reportTimes[ssrc] = now }
        // Loss in any report since the start stops it (the probe starts only on a link without
        // loss); only a report whose interval lies within it (not the first) shows none.
        if fractionLost >= configuration.maxLoss { failure = failure ?? "loss" }
        if reportTimes[ssrc] != nil { coveredReports += 1 }
    }

    /// A NACK during the probe: `asked` numbers asked for the first time; `packetsSent` the
    /// transport's `rtpSent` now. Loss of `maxLoss` of what was sent since the start stops it, as
    /// a report's would, but a report's interval sooner: a probe that overfills a tail-drop queue
    /// loses its padding in runs, and the sooner it stops the fewer.
    mutating func onNACK(asked: Int, packetsSent: Int) {
        nacked += asked
        let sent = max(1, packetsSent - packetsSentAtStart)
        if Double(nacked) >= configuration.maxLoss * Double(sent) { failure = failure ?? "loss" }
    }

    /// The rate the probe proved, bits per second: what the transport sent since the start
    /// (`bytesSent` now), once it held `holdTime` with a report within it and no sign of a queue;
    /// nil otherwise.
    func proven(now: Int64, bytesSent: Int) -> Int? {
        guard failure == nil, now - start >= configuration.holdTime, coveredReports > 0 else { return nil }
        return Int(Double(bytesSent - bytesSentAtStart) * 8 * 1_000_000 / Double(now - start))
    }
}
