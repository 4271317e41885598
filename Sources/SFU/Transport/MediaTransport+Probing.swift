// Probing: while `LayerAllocator` asks for it, the transport tops up what it sends to the
// subscriber to the probe's rate with RTP padding-only packets on a video consumer's stream.
//
// The server negotiates no RTX, so padding goes on the primary SSRC (as a browser sends it
// without RTX): numbered from the consumer's own sequence (`SeqManager.insert`), so the receiver
// sees no gap to NACK, with the last frame's timestamp, only between frames. Copies of sent
// packets would not do: SRTP's replay protection drops a second packet with the same number
// before anything counts it. Each padding packet carries a transport-wide number, so
// transport-cc measures the probe; a REMB receiver counts it in its incoming rate, and its
// REMB and receiver reports while the probe runs say whether the link carried it
// (`REMBProbeEvidence`).
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
//
// Not RTX (RFC 4588): probing on an RTX stream leaves no gap in the primary sequence, but it needs
// a payload type per codec in both SDPs (§8, `apt`), an SSRC and a sequence per consumer
// (`ssrc-group:FID`), where the server's negotiation leaves RTX out everywhere
// (`MediaCapabilitiesSRTC`); and it would spare only the padding: a tail-drop queue that a probe
// overfilled drops media with it, and that gap holds such a receiver the same way until a resend
// comes through the queue (about twice its delay).

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

    /// The video consumer whose stream carries the probe: one that has sent and is between frames
    /// (`Consumer.atFrameBoundary`; one that stopped mid-frame would refuse every padding packet,
    /// and the next one may take it).
    private func probeSource() -> Consumer? {
        consumers.first { !$0.closed && !$0.paused && $0.kind == .video && $0.atFrameBoundary }
    }
}
