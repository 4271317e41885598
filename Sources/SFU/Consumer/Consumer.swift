import RTCWire

/// Counters of one consumer's sending side.
struct ConsumerCounters: Sendable {
    var packetsSent = 0
    /// Whole packets, headers included.
    var bytesSent = 0
    /// Payload octets (the SR's octet count, RFC 3550 §6.4.1).
    var payloadBytesSent = 0
    var retransmissions = 0
    var nacksReceived = 0
    var keyFrameRequestsReceived = 0
    /// Retransmissions asked for that were no longer cached.
    var retransmissionMisses = 0
    /// Padding-only packets sent to probe for bandwidth (`sendPadding`).
    var paddingPackets = 0
    /// Of the retransmissions, padding-only packets sent again on a NACK (`resendPadding`).
    var paddingResent = 0
    /// Of the retransmissions, those sent as RTX packets (RFC 4588) on the consumer's RTX stream.
    var rtxResent = 0
    /// Of the padding-only packets, those sent on the RTX stream (`Consumer.probesOnRTX`).
    var rtxPadding = 0
    /// Plain Opus packets sent wrapped in RED by the SFU (`Consumer.addsRED`).
    var redWrapped = 0
    /// Of those, the ones that carried the previous packet as a redundant block.
    var redRedundantBlocks = 0
}

/// What the subscriber's receiver reports said about this consumer's stream (RFC 3550 §6.4.1).
struct SubscriberReport: Sendable {
    var fractionLost: UInt8 = 0
    /// The loss this report stands for, in 256ths: `fractionLost`, or the share of the packets
    /// sent since the previous report that the subscriber asked for again by NACK, the larger
    /// (`Consumer.receivedReport`). What RED is added on and what the publisher hears of.
    var loss: UInt8 = 0
    var cumulativeLost: Int32 = 0
    /// The extended highest sequence number received (RFC 3550 §6.4.1).
    var highestSequence: UInt32 = 0
    /// In timestamp units.
    var jitter: UInt32 = 0
    /// Round-trip time from LSR/DLSR, µs.
    var roundTripTime: Int64?
    var receivedAt: Int64 = .min
}

/// Sends one producer's media to one subscriber transport, rewritten as a stream of its own:
/// its SSRC, gap-free sequence numbers (`SeqManager`), timestamps continuous across stream
/// switches, the subscriber's payload type and header extension ids. It answers the subscriber's
/// NACKs from the producer's packet cache, passes PLI/FIR up to the producer, and reports with SRs.
///
/// `SimpleConsumer` forwards a single stream; `SimulcastConsumer` picks a layer. I/O thread only.
class Consumer {
    /// A cached packet older than this (µs) is not resent: by then the decoder has moved on.
    static let retransmitMaxAge: Int64 = 3_000_000
    /// How often a consumer waiting for a key frame asks again (µs). A publisher may drop a
    /// request: Chrome takes one per 300 ms per track, counted from the last it took, so a second
    /// subscriber's request let through once the first was answered can be lost there; and until
    /// a packet reaches the subscriber, its own receiver never asks.
    static let keyFrameRetryInterval: Int64 = 1_000_000

    let id: ConsumerID
    /// The subscriber.
    let participant: ParticipantID
    // Unchecked back references, read for every packet (a checked `unowned` cost an atomic retain
    // and release per access, on the slow side-table path for the transport, which its
    // PeerTransport references weakly). Safe because of one invariant, kept by SFUCore alone:
    // every object it has registered has its owners registered (consumer → its producer and its
    // transport, producer → its transport, producer stream → its producer, transport → its
    // router), because every close path closes children before their owner — closeRouter
    // (channel close, drain) closes its transports; closeTransport (leave, kick, ICE timeout,
    // failed negotiation) closes their producers, then their consumers; closeProducer (unpublish)
    // closes its consumers — and a closed object is held by nothing but the local that closes it
    // (no lists outside SFUCore's, no posted closures, weak `PeerTransport.delegate`). Back
    // references are read only from registered objects or inside those close calls, and no
    // deinit reads one (SFUCore's own deinit may free a router before its transports).
    // BackReferenceLifetimeTests checks that each close path frees the children with their owner.
    unowned(unsafe) let transport: MediaTransport
    unowned(unsafe) let producer: Producer
    /// `transport` for `send`, which reaches it once per forwarded packet without even the
    /// retain a local strong copy of an `unowned(unsafe)` costs (on the side-table path: its
    /// PeerTransport holds it weakly). Same invariant.
    private let transportRef: Unmanaged<MediaTransport>
    let ssrc: UInt32
    let payloadType: UInt8
    /// The retransmission stream (RFC 4588 §4) when the subscriber negotiated `rtx` for the codec
    /// (`RTPEncodingParameters.rtxSSRC`): resends go on it as RTX packets, each with the next
    /// number of `rtxSequence`. Nil: resends are copies on `ssrc` with their first numbers.
    let rtx: (ssrc: UInt32, payloadType: UInt8)?
    /// The RTX stream's next sequence number (random start, RFC 3550 §5.1).
    @exclusivity(unchecked) private var rtxSequence: UInt16
    /// Probe padding goes on the RTX stream (padding-only packets, RFC 4588 §4 allows them there):
    /// with RTX toward a transport-cc receiver (`MediaTransport+Probing.swift`).
    let probesOnRTX: Bool
    /// The subscriber's RED payload type (RFC 2198) when it negotiated RED, else -1: RED from the
    /// publisher goes to it as RED, and to a subscriber without it as the primary block alone.
    let redPayloadType: Int16
    /// The publisher numbers the codec differently from the subscriber: forwarded RED gets its
    /// block headers' payload types rewritten.
    private let rewritesREDBlocks: Bool
    /// Whether plain Opus from the publisher now goes to this subscriber wrapped in RED, each
    /// packet with the previous one it was sent as a redundant block (RFC 2198 §3): on while its
    /// receiver reports show loss (docs/network.md, "RED added by the SFU"). Set by
    /// `receivedReport(now:)`; only for an audio subscriber that negotiated RED.
    @exclusivity(unchecked) private(set) var addsRED = false
    /// Since when the reports have shown loss below `redOffFractionLost` while `addsRED` (µs).
    private var lowLossSince: Int64 = .min
    /// Packets the subscriber asked for again (first requests, and those no longer cached) since
    /// its last receiver report, and `counters.packetsSent` at that report. A receiver that NACKs
    /// counts a resent packet as received, so its reports show only the loss NACK did not
    /// repair, even when the resends came too late to be played (a long path): the share it
    /// asked for is its link's loss.
    private var nackedSinceReport = 0
    private var sentAtReport = 0
    /// A relay leg's previous report's cumulative lost and extended highest sequence number, for
    /// the leg's own loss between two reports (`relayLegFractionLost`); nil before the first.
    private var legBaseline: (lost: Int32, highest: UInt32)?
    /// The source sequence number and timestamp of the last packet sent (for the redundant block:
    /// the packet itself is in the producer's audio cache); nil after a pause.
    @exclusivity(unchecked) private var lastForwarded: (sequence: UInt16, timestamp: UInt32)?
    /// A receiver report's fraction lost (in 256ths) at or above which RED is added: 5 %, where
    /// Opus concealment becomes audible and the 1 s report interval has seen several losses (at
    /// 50 packets/s, 2.5 a second); one late or lost packet in a report (2 %) does not turn it on.
    static let redOnFractionLost: UInt8 = 13
    /// Below this (2 %) for `redOffHold`, RED is no longer added. The gap between the two and the
    /// hold keep a loss that comes and goes (bursts a few seconds apart) from flapping it.
    static let redOffFractionLost: UInt8 = 5
    static let redOffHold: Int64 = 10_000_000
    let clockRate: UInt32
    let extensionIDs: HeaderExtensionIDs
    let feedback: FeedbackSupport
    /// The publisher's AV1 Dependency Descriptors go to the subscriber (both negotiated it, and
    /// the producer is one stream: a simulcast switch would bring another stream's frame numbers).
    let forwardsDependencyDescriptor: Bool
    /// The subscriber's mid for this m-section, as bytes: allocated once with the consumer, so
    /// each forwarded packet's `OutgoingExtensions` points at it without a retain and release.
    let mid: UnsafeRawBufferPointer
    /// The extension block of a packet that carries nothing but the mid, abs-send-time and the
    /// transport-wide number, written once (`FixedExtensionBlock`); nil when none is negotiated.
    let fixedBlock: FixedExtensionBlock?
    // The state below is read and written for every forwarded copy, on the I/O thread only, and
    // never passed `inout` across a call that could reach it again: it is declared without the
    // dynamic exclusivity check, a runtime call (~76 instructions) per access that the optimizer
    // could not remove on class properties (about ten per copy on this path with those of
    // `MediaTransport`, `PeerTransport` and `UDPSendQueue`; docs/benchmarks.md, "fifth profile").
    @exclusivity(unchecked) private(set) var paused: Bool
    var closed = false

    @exclusivity(unchecked) var sequenceNumbers: SeqManager
    /// `out = in − timestampOffset`.
    @exclusivity(unchecked) var timestampOffset: UInt32 = 0
    /// The SSRC of the producer stream being forwarded (0 before the first packet). Another SSRC
    /// on the same stream is its publisher's new peer connection: a new encoder, with its own
    /// sequence numbers and timestamps (docs/network.md, "Addresses that change").
    @exclusivity(unchecked) var sourceSSRC: UInt32 = 0
    @exclusivity(unchecked) private(set) var lastTimestamp: UInt32 = 0
    /// When the last packet went out, µs (`Int64.min` before any).
    @exclusivity(unchecked) private(set) var lastSendTime: Int64 = .min
    /// The outgoing sequence number of the newest packet sent.
    @exclusivity(unchecked) private(set) var lastOutSequence: UInt16 = 0
    /// Whether the newest packet sent ended a frame (RTP marker bit).
    @exclusivity(unchecked) private(set) var lastMarker = false
    /// The frame being sent when the consumer stopped (`finishFrame`) was given up unfinished: its
    /// source went on to a newer frame before the packet with its marker came (lost upstream), and
    /// no packet of it will be sent any more. Probe padding may then follow it (`atFrameBoundary`).
    @exclusivity(unchecked) private(set) var frameGivenUp = false
    let history = ConsumerSendHistory()
    /// Set for VP8 simulcast consumers: PictureID/TL0PICIDX continuity across switches. (A VP9 SVC
    /// consumer forwards one stream's picture ids unchanged: a receiver places a picture in the
    /// group of pictures by its id, so the gaps left by dropped temporal layers must stay.)
    @exclusivity(unchecked) var pictureIDs: VP8PictureIDRewriter?

    @exclusivity(unchecked) var counters = ConsumerCounters()
    /// Counters at the start of the current quality interval.
    var qualityPrior: (packets: Int, bytes: Int) = (0, 0)
    var report = SubscriberReport()
    /// The last two SRs sent: LSR (middle 32 bits of NTP) and when, for RTT (RFC 3550 §6.4.1).
    var sentReports: [(lsr: UInt32, at: Int64)] = []

    init(id: ConsumerID, participant: ParticipantID, transport: MediaTransport, producer: Producer,
         parameters: RTPParameters, ssrc: UInt32, paused: Bool) throws(SFUError) {
        guard let codec = parameters.codecs.first(where: { $0.isSameCodec(as: producer.codec) }) else {
            throw .unsupportedCodec(producer.codec.name)
        }
        self.id = id
        self.participant = participant
        self.transport = transport
        transportRef = .passUnretained(transport)
        self.producer = producer
        self.ssrc = ssrc
        payloadType = codec.payloadType
        if let rtxSSRC = parameters.encodings.first?.rtxSSRC, rtxSSRC != ssrc,
           let rtxPayloadType = parameters.rtxPayloadType(for: codec.payloadType) {
            rtx = (rtxSSRC, rtxPayloadType)
        } else {
            rtx = nil
        }
        rtxSequence = .random(in: 0 ... .max)
        redPayloadType = parameters.redPayloadType.map { Int16($0) } ?? -1
        rewritesREDBlocks = redPayloadType >= 0 && producer.codec.payloadType != codec.payloadType
        clockRate = codec.clockRate
        extensionIDs = HeaderExtensionIDs(parameters.headerExtensions)
        feedback = FeedbackSupport(codec)
        probesOnRTX = rtx != nil && feedback.transportCC
        forwardsDependencyDescriptor = extensionIDs.dependencyDescriptor != 0 && producer.extensionIDs.dependencyDescriptor != 0
            && producer.streams.count == 1
        let midBytes = Array((parameters.mid ?? "").utf8.prefix(255))
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: midBytes.count, alignment: 1)
        storage.copyBytes(from: midBytes)
        mid = UnsafeRawBufferPointer(storage)
        fixedBlock = FixedExtensionBlock.make(ids: extensionIDs, mid: mid)
        self.paused = paused
        sequenceNumbers = SeqManager()
        sentReports.reserveCapacity(2)
    }

    deinit {
        mid.deallocate()
        fixedBlock?.deallocate()
    }

    var kind: MediaKind { producer.kind }

    // MARK: - Packet path (overridden)

    /// Forwards (or not) one packet of `stream`.
    func forward(_ view: RTPPacketView, from stream: ProducerStream, isKeyFrame: Bool, now: Int64) {}

    /// A packet of `stream` the producer did not forward (padding only): close its gap.
    func skip(_ sequenceNumber: UInt16, from stream: ProducerStream) {}

    /// The producer stream being forwarded now.
    var currentLayer: Int? { nil }

    /// The subscriber or a pause/resume needs a key frame.
    func requestKeyFrame(now: Int64) {
        if let layer = currentLayer { producer.requestKeyFrame(layer: layer, now: now) }
    }

    /// When `tick` asks again for a key frame still waited for (µs); nil when none is waited for.
    /// The transport's timers wake for it (`MediaTransport.nextTimer`).
    var nextKeyFrameAsk: Int64? { nil }

    /// Periodic work on the I/O thread, from the transport's timers: asking again for a key frame
    /// still waited for, once `nextKeyFrameAsk` has come.
    func tick(now: Int64) {}

    /// The last timestamp sent moved on by the wall time since it was sent (at least one tick):
    /// where a new source's first timestamp goes when nothing better maps one onto the other.
    final func timestampAfterLastSent(now: Int64) -> UInt32 {
        let elapsed = max(0, now - lastSendTime)
        return lastTimestamp &+ UInt32(truncatingIfNeeded: max(1, elapsed * Int64(clockRate) / 1_000_000))
    }

    /// The stream being forwarded came back under a new SSRC (`sourceSSRC`): the packet with
    /// `firstTimestamp` starts new runs that follow what was sent, so the subscriber sees one
    /// stream with no jump in sequence numbers or time.
    final func continueAfterRestartedSource(firstTimestamp: UInt32, now: Int64) {
        sequenceNumbers.requestSync()
        lastForwarded = nil
        if lastSendTime != .min { timestampOffset = firstTimestamp &- timestampAfterLastSent(now: now) }
    }

    /// Resumed: the next packet starts a new run of sequence numbers.
    func didResume(now: Int64) {
        sequenceNumbers.requestSync()
        lastForwarded = nil
    }

    /// The subscriber's receiver reported on this stream (`report` updated): RED is added from a
    /// report at `redOnFractionLost` or above, and no longer once the reports have stayed below
    /// `redOffFractionLost` for `redOffHold`. Only for audio toward a subscriber with RED. The
    /// loss of a report is its fraction lost or the share of the packets sent since the last one
    /// that the subscriber NACKed, the larger (`nackedSinceReport`); toward a relay leg, RED reads
    /// the leg's own loss instead of the fraction lost (`relayLegFractionLost`).
    final func receivedReport(now: Int64) {
        let sent = counters.packetsSent - sentAtReport
        let asked = sent > 0 ? UInt8(min(255, nackedSinceReport * 256 / sent)) : 0
        sentAtReport = counters.packetsSent
        nackedSinceReport = 0
        // The loss the reports show, or the share asked for again by NACK, the larger.
        let lost = max(report.fractionLost, asked)
        report.loss = lost
        guard redPayloadType >= 0, producer.isAudio else { return }
        // A relay leg (worker pipe, node-to-node uplink) adds RED on its own loss alone: the far
        // router's fraction lost carries its subscribers' worst loss (`Producer.reportBlock`), and
        // it adds RED toward a lossy subscriber of its own, so RED on a clean leg doubles its
        // audio for nothing (docs/network.md, "Subscribers on another worker or node").
        let redLoss = transport.dataRelay ? max(relayLegFractionLost(), asked) : lost
        if redLoss >= Self.redOnFractionLost {
            if !addsRED { transport.counters.red.turnedOn += 1 }
            addsRED = true
            lowLossSince = .min
        } else if addsRED {
            if redLoss >= Self.redOffFractionLost {
                lowLossSince = .min
            } else if lowLossSince == .min {
                lowLossSince = now
            } else if now - lowLossSince >= Self.redOffHold {
                transport.counters.red.turnedOff += 1
                addsRED = false
                lowLossSince = .min
            }
        }
    }

    /// A relay leg's own loss since its previous report, in 256ths: the change in cumulative lost
    /// over the change in extended highest sequence number, as a receiver computes the fraction
    /// (RFC 3550 §A.3); the far router leaves those two the leg's own. 0 at the first report
    /// (nothing to compare with) and when no packet was expected since.
    private func relayLegFractionLost() -> UInt8 {
        defer { legBaseline = (report.cumulativeLost, report.highestSequence) }
        guard let base = legBaseline else { return 0 }
        let expected = Int64(Int32(bitPattern: report.highestSequence &- base.highest))
        let lost = Int64(report.cumulativeLost) - Int64(base.lost)
        guard expected > 0, lost > 0 else { return 0 }
        return UInt8(min(255, lost * 256 / expected))
    }

    /// How a plain packet goes out while `addsRED`: in RED, with the packet sent just before it
    /// (read back from the producer's audio cache, its primary block if it came as RED) as the
    /// redundant block when it is the source's previous number and fits a block header (RFC 2198
    /// §3: 14-bit offset, 10-bit length); else the primary block alone.
    /// Counts, in the transport's counters, which condition left the block out.
    @inline(__always)
    private func redWrap(_ view: RTPPacketView) -> RTPForwardWriter.REDWrap {
        var wrap = RTPForwardWriter.REDWrap(redundant: nil, timestampOffset: 0, blockPayloadType: payloadType)
        guard let last = lastForwarded, last.sequence &+ 1 == view.sequenceNumber else {
            transportRef._withUnsafeGuaranteedRef { $0.counters.red.notPrevious += 1 }
            return wrap
        }
        guard let cached = producer.streams[0].cache?.packet(sequenceNumber: last.sequence),
              let previous = try? RTPPacketView(cached) else {
            transportRef._withUnsafeGuaranteedRef { $0.counters.red.notCached += 1 }
            return wrap
        }
        let offset = view.timestamp &- last.timestamp
        var data = previous.payload
        var parsed = true
        if producer.isRED(previous) {
            if let red = try? REDPayloadView(data) { data = red.data(red.primary) } else { parsed = false }
        }
        guard parsed, offset > 0, offset <= REDPayloadWriter.maxTimestampOffset, !data.isEmpty,
              data.count <= REDPayloadWriter.maxBlockLength else {
            transportRef._withUnsafeGuaranteedRef { $0.counters.red.unfit += 1 }
            return wrap
        }
        transportRef._withUnsafeGuaranteedRef { $0.counters.red.withBlock += 1 }
        wrap.redundant = data
        wrap.timestampOffset = offset
        return wrap
    }

    /// How a packet of the producer goes to this subscriber (RFC 2198): a RED packet as RED to a
    /// subscriber that negotiated it, and as its primary block alone (the packet's own
    /// timestamp, §3) with the codec's payload type to one that did not; a plain packet as it is.
    /// Nil for a RED packet to strip that does not parse or whose primary block is empty: it is
    /// not sent (its number is dropped, `SimpleConsumer.forward`).
    @inline(__always)
    final func outgoing(_ view: RTPPacketView) -> (payloadType: UInt8, payload: UnsafeRawBufferPointer?)? {
        guard producer.isRED(view) else { return (payloadType, nil) }
        if redPayloadType >= 0 { return (UInt8(truncatingIfNeeded: redPayloadType), nil) }
        do {
            let red = try REDPayloadView(view.payload)
            guard !red.primary.range.isEmpty else { return nil }
            return (payloadType, red.data(red.primary))
        } catch {
            return nil
        }
    }

    /// After a RED packet was written as RED into `slot` (`written` bytes): its blocks' payload
    /// types in the subscriber's numbering.
    @inline(__always)
    private func rewriteREDBlocks(_ view: RTPPacketView, in slot: UnsafeMutableRawBufferPointer, written: Int) {
        guard rewritesREDBlocks, producer.isRED(view) else { return }
        let end = written - view.paddingLength
        REDPayloadWriter.setBlockPayloadTypes(UnsafeMutableRawBufferPointer(rebasing: slot[(end - view.payload.count) ..< end]),
                                              to: payloadType)
    }

    // MARK: - Control

    func setPaused(_ value: Bool, now: Int64) {
        guard value != paused else { return }
        paused = value
        if !value { didResume(now: now) }
        transport.wakeTimers()  // a simulcast consumer's key-frame re-ask depends on it
    }

    // MARK: - Sending

    /// Writes `view` rewritten into the transport's send queue.
    @inline(__always)
    /// - Parameters:
    ///   - setMarker: set the RTP marker the source packet lacks (it ends the picture for this
    ///     subscriber: an SVC consumer that drops the picture's upper spatial layers).
    ///   - descriptorRewrite: write the packet's Dependency Descriptor with these active decode
    ///     targets (an AV1 SVC consumer, av1-rtp-spec §A.4).
    final func send(_ view: RTPPacketView, layer: Int, outSequence: UInt16, outTimestamp: UInt32, now: Int64,
                    setMarker: Bool = false, descriptorRewrite: OutgoingExtensions.DescriptorRewrite? = nil) {
        transportRef._withUnsafeGuaranteedRef { transport in
            send(view, on: transport, layer: layer, outSequence: outSequence, outTimestamp: outTimestamp, now: now,
                 setMarker: setMarker, descriptorRewrite: descriptorRewrite)
        }
    }

    @inline(__always)
    private func send(_ view: RTPPacketView, on transport: MediaTransport, layer: Int, outSequence: UInt16,
                      outTimestamp: UInt32, now: Int64, setMarker: Bool, descriptorRewrite: OutgoingExtensions.DescriptorRewrite?) {
        let useTWCC = extensionIDs.transportWideCC != 0
        let twcc = transport.transportSequence
        var extensions = OutgoingExtensions(
            ids: extensionIDs, mid: mid, audioLevel: nil,
            absSendTime: RTPForwardWriter.absSendTime(micros: now), transportSequence: twcc, fixed: fixedBlock)
        copyOriginExtensions(of: view, into: &extensions)
        if extensions.dependencyDescriptor != nil { extensions.descriptorRewrite = descriptorRewrite }
        var deltas: (UInt16, UInt8) = (0, 0)
        guard let (payloadTypeOut, replacement) = outgoing(view) else { return }
        var outPayloadType = payloadTypeOut
        // Plain Opus toward a lossy RED subscriber: wrapped (only the first send; a resend is plain).
        var red: RTPForwardWriter.REDWrap?
        if addsRED, replacement == nil, !view.payload.isEmpty, !producer.isRED(view) {
            red = redWrap(view)
            outPayloadType = UInt8(truncatingIfNeeded: redPayloadType)
        }
        // Video may wait in the pacer; audio leaves at once (`MediaTransport+Pacing.swift`).
        let result = transport.sendMedia(paced: producer.isVideo, stampedAt: now, extensionIDs: extensionIDs, now: now) { slot in
            guard let written = RTPForwardWriter.write(view, into: slot, ssrc: ssrc, sequenceNumber: outSequence,
                                                       timestamp: outTimestamp, payloadType: outPayloadType,
                                                       extensions: extensions, payload: replacement, red: red) else { return nil }
            if replacement == nil, red == nil { rewriteREDBlocks(view, in: slot, written: written) }
            if pictureIDs != nil {
                let end = written - view.paddingLength
                deltas = pictureIDs!.rewrite(UnsafeMutableRawBufferPointer(rebasing: slot[(end - view.payload.count) ..< end]))
            }
            if setMarker { slot[1] |= 0x80 }
            return written
        }
        guard let length = transport.record(result, transportSequence: twcc, numbered: useTWCC, now: now) else { return }
        transport.countSent(bytes: length)
        history.record(.init(outSequence: outSequence, inSequence: view.sequenceNumber, layer: UInt8(truncatingIfNeeded: layer),
                             valid: true, outTimestamp: outTimestamp, pictureIDDelta: deltas.0, tl0Delta: deltas.1,
                             lastSent: now, setMarker: setMarker,
                             descriptorMask: descriptorRewrite?.activeDecodeTargets ?? 0,
                             rewritesDescriptor: extensions.descriptorRewrite != nil))
        counters.packetsSent += 1
        counters.bytesSent += length
        if let red {
            counters.payloadBytesSent += red.length(primaryLength: view.payload.count)
            counters.redWrapped += 1
            if red.redundant != nil { counters.redRedundantBlocks += 1 }
        } else {
            counters.payloadBytesSent += replacement?.count ?? view.payload.count
        }
        if producer.isAudio { lastForwarded = (view.sequenceNumber, view.timestamp) }
        if lastSendTime == .min || RTPTimestamp.isNewer(outTimestamp, than: lastTimestamp) { lastTimestamp = outTimestamp }
        if lastSendTime == .min || SequenceNumber.isNewer(outSequence, than: lastOutSequence) {
            lastOutSequence = outSequence
            lastMarker = view.marker || setMarker
        }
        frameGivenUp = false
        lastSendTime = now
    }

    /// While the consumer stops after the frame being sent (paused for bandwidth, or a lower layer
    /// taken at once under congestion): forwards the rest of that frame, and nothing after it. A
    /// packet of a newer frame from the source means the rest of this one is not coming (its
    /// marker packet was lost upstream): the frame is given up, and a late resend of its missing
    /// packets is not forwarded either, so that probe padding may go after it (`frameGivenUp`).
    final func finishFrame(_ view: RTPPacketView, layer: Int, now: Int64) {
        guard !lastMarker, !frameGivenUp, lastSendTime != .min else { return }
        let timestamp = view.timestamp &- timestampOffset
        guard timestamp == lastTimestamp else {
            if RTPTimestamp.isNewer(timestamp, than: lastTimestamp) { frameGivenUp = true }
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: layer, outSequence: outSequence, outTimestamp: timestamp, now: now)
    }

    /// Whether probe padding may go on this stream now: something was sent and no frame is
    /// unfinished (the last packet sent had the marker, or its frame was given up: `frameGivenUp`).
    final var atFrameBoundary: Bool { lastSendTime != .min && (lastMarker || frameGivenUp) }

    /// Answers a NACK: resends each packet still cached, rewritten exactly as first sent (with a
    /// new transport-wide number), and a probe's padding-only packet as padding again. A packet
    /// already resent is resent again only after one RTT.
    /// - Returns: how many of the numbers were asked for the first time.
    @discardableResult
    final func retransmit(_ sequenceNumbers: [UInt16], now: Int64) -> Int {
        counters.nacksReceived += 1
        let askedBefore = nackedSinceReport
        let minInterval = max(report.roundTripTime ?? 0, 10_000)
        for outSequence in sequenceNumbers {
            guard let record = history.lookup(outSequence) else {
                counters.retransmissionMisses += 1
                nackedSinceReport += 1
                continue
            }
            if record.resendCount == 0 { nackedSinceReport += 1 }
            if record.resendCount > 0, now - record.lastSent < minInterval { continue }
            if record.isPadding {
                resendPadding(record, now: now)
                continue
            }
            let layer = Int(record.layer)
            guard producer.streams.indices.contains(layer),
                  let cached = producer.streams[layer].cache?.packet(sequenceNumber: record.inSequence, now: now, maxAge: Self.retransmitMaxAge),
                  let view = try? RTPPacketView(cached) else { counters.retransmissionMisses += 1; continue }
            resend(view, record: record, now: now)
        }
        return nackedSinceReport - askedBefore
    }

    /// Sends one padding-only packet (RFC 3550 §5.1) of `paddingLength` octets to probe for
    /// bandwidth (`MediaTransport+Probing.swift`): the next number of the consumer's own sequence
    /// (`SeqManager.insert`), so the receiver sees no gap, and the timestamp of the last frame
    /// sent. Only between frames (after a packet with the marker bit), as senders do: a receiver
    /// then never finds one inside a frame.
    ///
    /// Or after a frame given up unfinished (`frameGivenUp`: a consumer paused for bandwidth whose
    /// last frame lost its marker packet upstream), which would otherwise keep the stream from
    /// carrying any probe while it is paused. Padding-only packets are allowed anywhere in the
    /// sequence (RFC 3550 §5.1); the receiver counts their numbers as received and so sees no gap
    /// after the unfinished frame, which stays incomplete in its jitter buffer (libwebrtc's packet
    /// buffer takes padding as a received number, `PacketBuffer::InsertPadding`, and finds no
    /// frame end in it) and is dropped there when the resume's key frame comes: the video resumes
    /// only on a key frame, which references nothing before it.
    /// - Returns: false when none could be sent now.
    final func sendPadding(_ paddingLength: Int, now: Int64) -> Bool {
        if probesOnRTX { return sendRTXPadding(paddingLength, now: now) }
        let transport = self.transport
        // Padding only tops up a link with nothing waiting in the pacer.
        guard atFrameBoundary, transport.pacer.isEmpty, let outSequence = sequenceNumbers.insert() else { return false }
        let twcc = transport.transportSequence
        let extensions = OutgoingExtensions(ids: extensionIDs, mid: mid, audioLevel: nil,
                                            absSendTime: RTPForwardWriter.absSendTime(micros: now), transportSequence: twcc,
                                            fixed: fixedBlock)
        let result = transport.sendMedia(paced: false, stampedAt: now, extensionIDs: extensionIDs, now: now) { slot in
            RTPForwardWriter.writePadding(into: slot, ssrc: ssrc, sequenceNumber: outSequence, timestamp: lastTimestamp,
                                          payloadType: payloadType, extensions: extensions, paddingLength: paddingLength)
        }
        guard case .sent(let length) = result else { return false }
        if extensionIDs.transportWideCC != 0 { transport.didSend(transportSequence: twcc, size: length, now: now) }
        transport.countSent(bytes: length)
        // Recorded, so that a NACK for it is answered (`resendPadding`).
        history.record(.init(outSequence: outSequence, inSequence: 0, layer: 0, valid: true, outTimestamp: lastTimestamp,
                             pictureIDDelta: 0, tl0Delta: 0, lastSent: now, isPadding: true))
        lastOutSequence = outSequence
        counters.packetsSent += 1
        counters.bytesSent += length
        counters.paddingPackets += 1
        return true
    }

    /// A probe's padding-only packet on the RTX stream (RFC 4588 §4: the RTX payload type, no OSN,
    /// the next RTX number and the last frame's timestamp). Nothing in the media stream moves, so
    /// it may go inside a frame, while the consumer is paused, and its loss leaves the receiver no
    /// gap to NACK (nothing is recorded to resend).
    private func sendRTXPadding(_ paddingLength: Int, now: Int64) -> Bool {
        let transport = self.transport
        guard let rtx, lastSendTime != .min, transport.pacer.isEmpty else { return false }
        let twcc = transport.transportSequence
        let extensions = OutgoingExtensions(ids: extensionIDs, mid: mid, audioLevel: nil,
                                            absSendTime: RTPForwardWriter.absSendTime(micros: now), transportSequence: twcc,
                                            fixed: fixedBlock)
        let sequence = rtxSequence
        let result = transport.sendMedia(paced: false, stampedAt: now, extensionIDs: extensionIDs, now: now) { slot in
            RTPForwardWriter.writePadding(into: slot, ssrc: rtx.ssrc, sequenceNumber: sequence, timestamp: lastTimestamp,
                                          payloadType: rtx.payloadType, extensions: extensions, paddingLength: paddingLength)
        }
        guard case .sent(let length) = result else { return false }
        if extensionIDs.transportWideCC != 0 { transport.didSend(transportSequence: twcc, size: length, now: now) }
        transport.countSent(bytes: length)
        rtxSequence &+= 1
        // Not in `packetsSent`: that is the media SSRC's count (its SR, RFC 3550 §6.4.1).
        counters.bytesSent += length
        counters.paddingPackets += 1
        counters.rtxPadding += 1
        return true
    }

    /// Answers a NACK for a probe's padding-only packet with a padding-only packet of the same
    /// number and timestamp. The receiver lost that number, so it counts the gap as loss
    /// (RFC 3550 §A.3) and NACKs it (RFC 4585 §6.2.1); a receiver whose jitter buffer hands on
    /// frames only in unbroken sequence order (aiortc's) would otherwise hold every later frame
    /// until its buffer overflows. Its SRTP index never reached the receiver, so it is not a
    /// replay there (RFC 3711 §3.3.2). One octet of padding (RFC 3550 §5.1: the count octet
    /// alone) fills the number: the loss it answers says the link's queue is full, and a probe's
    /// lost tail is tens of packets whose full 255 octets would queue again (45 of them: 340 ms
    /// at 300 kbit/s) before the frames waiting on them.
    private func resendPadding(_ record: ConsumerSendHistory.Record, now: Int64) {
        let transport = self.transport
        let twcc = transport.transportSequence
        let extensions = OutgoingExtensions(ids: extensionIDs, mid: mid, audioLevel: nil,
                                            absSendTime: RTPForwardWriter.absSendTime(micros: now), transportSequence: twcc,
                                            fixed: fixedBlock)
        // Paced, as a resent media packet.
        let result = transport.sendMedia(paced: true, stampedAt: 0, extensionIDs: extensionIDs, now: now) { slot in
            RTPForwardWriter.writePadding(into: slot, ssrc: ssrc, sequenceNumber: record.outSequence, timestamp: record.outTimestamp,
                                          payloadType: payloadType, extensions: extensions, paddingLength: 1)
        }
        guard let length = transport.record(result, transportSequence: twcc, numbered: extensionIDs.transportWideCC != 0, now: now) else { return }
        transport.countSent(bytes: length)
        history.markResent(record.outSequence, at: now)
        counters.retransmissions += 1
        counters.paddingResent += 1
        transport.counters.retransmissions += 1
        counters.bytesSent += length
    }

    private func resend(_ view: RTPPacketView, record: ConsumerSendHistory.Record, now: Int64) {
        let transport = self.transport
        let twcc = transport.transportSequence
        var extensions = OutgoingExtensions(ids: extensionIDs, mid: mid, audioLevel: nil,
                                            absSendTime: RTPForwardWriter.absSendTime(micros: now), transportSequence: twcc,
                                            fixed: fixedBlock)
        copyOriginExtensions(of: view, into: &extensions)
        if record.rewritesDescriptor, let value = extensions.dependencyDescriptor, let layout = descriptorLayout(value, layer: Int(record.layer)) {
            extensions.descriptorRewrite = .init(layout: layout, activeDecodeTargets: record.descriptorMask)
        }
        let rewriteVP8 = pictureIDs != nil
        guard let (outPayloadType, replacement) = outgoing(view) else { return }
        let result = transport.sendMedia(paced: producer.isVideo, stampedAt: 0, extensionIDs: extensionIDs, now: now) { slot in
            guard let written = RTPForwardWriter.write(view, into: slot, ssrc: ssrc, sequenceNumber: record.outSequence,
                                                       timestamp: record.outTimestamp, payloadType: outPayloadType,
                                                       extensions: extensions, payload: replacement) else { return nil }
            if replacement == nil { rewriteREDBlocks(view, in: slot, written: written) }
            if rewriteVP8 {
                let end = written - view.paddingLength
                VP8PictureIDRewriter.apply(UnsafeMutableRawBufferPointer(rebasing: slot[(end - view.payload.count) ..< end]),
                                           pictureIDDelta: record.pictureIDDelta, tl0Delta: record.tl0Delta)
            }
            if record.setMarker { slot[1] |= 0x80 }
            // RFC 4588 §4: the packet as first sent, on the RTX stream, its number after the header.
            guard let rtx else { return written }
            return RTXPacket.wrap(slot, length: written, ssrc: rtx.ssrc, sequenceNumber: rtxSequence, payloadType: rtx.payloadType)
        }
        guard let length = transport.record(result, transportSequence: twcc, numbered: extensionIDs.transportWideCC != 0, now: now) else { return }
        transport.countSent(bytes: length)
        history.markResent(record.outSequence, at: now)
        counters.retransmissions += 1
        transport.counters.retransmissions += 1
        counters.bytesSent += length
        if rtx != nil {
            rtxSequence &+= 1
            counters.rtxResent += 1
        }
    }

    /// The layout of a cached packet's Dependency Descriptor, read again with its stream's
    /// structure (not kept: the packet is old), to rewrite it as it was first sent.
    private func descriptorLayout(_ value: UnsafeRawBufferPointer, layer: Int) -> DependencyDescriptor.Layout? {
        guard producer.streams.indices.contains(layer), producer.streams[layer].dependencyDescriptors != nil else { return nil }
        return (try? producer.streams[layer].dependencyDescriptors!.read(value, keepsStructure: false))?.layout
    }

    /// The values the publisher's packet carries that go to the subscriber unchanged: the RFC 6464
    /// audio level, abs-capture-time and the AV1 Dependency Descriptor (each only when both sides
    /// negotiated it).
    @inline(__always)
    private func copyOriginExtensions(of view: RTPPacketView, into extensions: inout OutgoingExtensions) {
        let source = producer.extensionIDs
        if extensionIDs.audioLevel != 0, source.audioLevel != 0 {
            extensions.audioLevel = view.extensionValue(id: source.audioLevel)?.first
        }
        if extensionIDs.absCaptureTime != 0, source.absCaptureTime != 0,
           let value = view.extensionValue(id: source.absCaptureTime),
           value.count == AbsCaptureTimeExtension.shortSize || value.count == AbsCaptureTimeExtension.longSize {
            extensions.absCaptureTime = value
        }
        if forwardsDependencyDescriptor {
            extensions.dependencyDescriptor = view.extensionValue(id: source.dependencyDescriptor)
        }
    }

    // MARK: - Feedback from the subscriber

    /// PLI or FIR for this consumer's SSRC.
    func receivedKeyFrameRequest(now: Int64) {
        counters.keyFrameRequestsReceived += 1
        requestKeyFrame(now: now)
    }
}
