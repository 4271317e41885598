// Probing: while `LayerAllocator` asks for it, the transport tops up what it sends to the
// subscriber to the probe's rate with RTP padding-only packets on a video consumer's stream.
//
// Toward a subscriber that negotiated RTX (RFC 4588) and sends transport-cc feedback (Chromium),
// padding goes on the consumer's RTX stream (`Consumer.sendRTXPadding`): padding-only packets with
// the RTX payload type and the RTX stream's next numbers. Padding rather than RTX copies of recent
// packets (Chromium's and LiveKit's choice, RFC 4588 allows either): a copy costs a cache lookup
// and a rewrite per packet and repairs only what the receiver may already have, while padding is
// written from nothing, can be any size up to 255 octets, and, the RTX stream being apart from
// the media's, leaves the media sequence untouched: it may go inside a frame and on a paused
// consumer, and a lost one leaves the receiver no gap to NACK (a receiver does not NACK an RTX
// stream). Its transport-wide numbers are what transport-cc measures the probe by.
//
// Toward the others (no RTX: the Swift SDK, or REMB only: aiortc), padding goes on the primary
// SSRC (as a browser sends it without RTX): numbered from the consumer's own sequence
// (`SeqManager.insert`), so the receiver sees no gap to NACK, with the last frame's timestamp,
// only between frames. Copies of sent packets would not do: SRTP's replay protection drops a
// second packet with the same number before anything counts it. Each padding packet carries a
// transport-wide number, so transport-cc measures the probe; a REMB receiver counts it in its
// incoming rate, and its REMB and receiver reports while the probe runs say whether the link
// carried it (`REMBProbeEvidence`). A REMB-only receiver keeps primary padding even with RTX:
// the NACKs for lost padding are the first sign that the probe overfilled its link.
//
// A probe that overfills the link's queue loses padding too, and each lost padding packet is a
// gap in that sequence: the receiver NACKs it (RFC 4585 §6.2.1) and a receiver whose jitter
// buffer hands on frames only in unbroken sequence order (aiortc's: up to 512 packets) holds every
// later frame until the number comes. So the consumer records which numbers were padding
// (`ConsumerSendHistory.Record.isPadding`) and answers a NACK for one with a padding-only
// packet of that number and timestamp with one octet of padding (`Consumer.resendPadding`): the
// receiver never got that SRTP index (no replay, RFC 3711 §3.3.2), and a short one queues least
// on the link whose overflow lost it. In the lab (300 kbit/s tbf, aiortc) a lost probe tail held aiortc's video 1.5–7 s before;
// every NACKed number then came. And since that NACK is the first sign of the loss (a receiver
// report comes 0.5–1.5 s later), a NACK for 2 % of what was sent since a REMB-only probe started
// stops the probe at the next tick (`REMBProbeEvidence.onNACK`), as the report's loss would.

/// Paces a probe: a credit of bytes that grows at the probe's rate and shrinks with everything
/// the transport sends, capped at two ticks' worth so nothing bursts.
struct ProbePacer: Sendable, Equatable {
    /// Bits per second to reach, media included.
    var rate: Int
    var lastTime: Int64
    /// `TransportCounters.bytesSent` at `lastTime`.
    var sentMark: Int
    var credit: Double = 0

    /// Most probe packets sent in one tick, and their padding (RFC 3550 §5.1: at most 255).
    static let maxPacketsPerTick = 24
    static let paddingLength = 255
    /// The credit never exceeds this much sending time, µs.
    static let maxCreditTime: Int64 = 40_000
}

extension MediaTransport {
    var isProbing: Bool { probePacer != nil }

    /// Starts the probe, or sets the running one's rate.
    /// - Parameter measuringAfresh: the next step of a probe that goes on (`Decision.probeContinued`):
    ///   its delivered rate is measured from now, not with the step before.
    func startProbe(rate: Int, now: Int64, measuringAfresh: Bool = false) {
        if probePacer == nil {
            bandwidth.startProbe(at: now, bytesSent: counters.bytesSent, packetsSent: counters.rtpSent)
            probePacer = ProbePacer(rate: rate, lastTime: now, sentMark: counters.bytesSent)
            wakeTimers()
        } else {
            if measuringAfresh { bandwidth.startProbe(at: now, bytesSent: counters.bytesSent, packetsSent: counters.rtpSent) }
            probePacer!.rate = rate
        }
    }

    func stopProbe() {
        guard probePacer != nil else { return }
        probePacer = nil
        bandwidth.endProbe()
    }

    /// Sends this tick's share of the probe (from `tick`, every router tick while probing).
    func sendProbePackets(now: Int64) {
        guard var pacer = probePacer else { return }
        let elapsed = max(0, now - pacer.lastTime)
        pacer.credit += Double(pacer.rate) * Double(elapsed) / 8_000_000
        pacer.credit -= Double(counters.bytesSent - pacer.sentMark)
        pacer.credit = min(pacer.credit, Double(pacer.rate) * Double(ProbePacer.maxCreditTime) / 8_000_000)
        var sent = 0
        if pacer.credit > 0, let source = probeSource() {
            var before = counters.bytesSent
            while pacer.credit > 0, sent < ProbePacer.maxPacketsPerTick, source.sendPadding(ProbePacer.paddingLength, now: now) {
                pacer.credit -= Double(counters.bytesSent - before)
                before = counters.bytesSent
                sent += 1
            }
        }
        counters.probePacketsSent += sent
        pacer.lastTime = now
        pacer.sentMark = counters.bytesSent
        probePacer = pacer
    }

    /// The video consumer whose stream carries the probe: one that has sent and, unless its
    /// padding goes on its RTX stream (which neither a pause nor an unfinished frame touches), is
    /// not paused and is between frames (`Consumer.atFrameBoundary`; one that stopped mid-frame
    /// would refuse every padding packet, and the next one may take it).
    private func probeSource() -> Consumer? {
        consumers.first { c in
            !c.closed && c.kind == .video && (c.probesOnRTX ? c.lastSendTime != .min : !c.paused && c.atFrameBoundary)
        }
    }
}
