import RTCWire

// The loss an audio publisher hears of: the SFU ends RTCP on each leg (its receiver reports to a
// publisher describe the publisher → SFU leg alone), so without this a publisher never learns
// that its subscribers lose packets, and its Opus encoder plans no in-band FEC for them
// (docs/network.md, "Opus in-band FEC tuned to the loss subscribers see").

extension Producer {
    /// A subscriber's report older than this (µs) no longer counts. Chromium reports on audio
    /// about every 5 s (randomized to 2.5–7.5 s, RFC 3550 §6.3.1), the Swift SDK every second:
    /// 10 s keeps a Chromium subscriber's last report until its next one, and forgets one that
    /// left or stopped reporting.
    static let downstreamLossMaxAge: Int64 = 10_000_000

    /// The worst loss the subscribers of this audio producer reported lately, in 256ths (the
    /// fraction-lost unit, RFC 3550 §6.4.1): for each consumer its latest report's loss (its
    /// fraction lost, or the share it asked for again by NACK, the larger: `SubscriberReport.loss`),
    /// the largest of those no older than `downstreamLossMaxAge`. 0 for video and without reports.
    /// Runs at each report interval, not per packet; iterates without allocating.
    func downstreamFractionLost(now: Int64) -> UInt8 {
        guard kind == .audio else { return 0 }
        return Self.worstLoss(consumers.lazy.filter { !$0.closed }.map(\.report), now: now)
    }

    /// The aggregation rule, apart for its tests: the largest `loss` among `reports` received
    /// within `downstreamLossMaxAge` of `now` (the worst subscriber, as LiveKit's audio loss proxy
    /// takes; a mean would let one lossy listener among many go unheard).
    static func worstLoss(_ reports: some Sequence<SubscriberReport>, now: Int64) -> UInt8 {
        var worst: UInt8 = 0
        for report in reports where report.receivedAt != .min && now - report.receivedAt <= downstreamLossMaxAge {
            worst = max(worst, report.loss)
        }
        return worst
    }

    /// A receiver report block about this producer's `stream` for its publisher: for audio, its
    /// fraction lost is the larger of the publisher → SFU leg's own and the subscribers' worst
    /// (`downstreamFractionLost`). Only the fraction changes: the cumulative count and the
    /// highest sequence number stay the leg's own, so a sender that computes its loss from those
    /// (libwebrtc's send-side bandwidth estimate) is not misled about its uplink.
    func reportBlock(for stream: ProducerStream, ssrc: UInt32, now: Int64) -> ReceptionReport {
        var block = stream.statistics.makeReportBlock(ssrc: ssrc, nowMicros: now)
        if kind == .audio { block.fractionLost = max(block.fractionLost, downstreamFractionLost(now: now)) }
        return block
    }
}
