import RTCNet
import RTCTransport
import RTCWire

/// Packet and byte counters of one transport.
struct TransportCounters: Sendable {
    var rtpReceived = 0
    var rtcpReceived = 0
    var bytesReceived = 0
    var rtpSent = 0
    var bytesSent = 0
    var rtcpSent = 0
    /// Feedback: NACK packets from the peer (as a subscriber) and resends answering them; NACKs,
    /// PLIs and FIRs to the peer (as a publisher); PLIs and FIRs from it.
    var nacksReceived = 0
    var retransmissions = 0
    var nacksSent = 0
    var plisReceived = 0
    var firsReceived = 0
    var plisSent = 0
    var firsSent = 0
    /// RED added by the SFU toward this subscriber (`Consumer.addsRED`).
    var red = SFUMetrics.REDAdded()
    /// RTP that matched no producer stream.
    var unknownSSRC = 0
    /// RTP or RTCP that did not parse.
    var malformed = 0
    /// Last RTP or RTCP arrival, µs (`Int64.min` before any).
    var lastReceiveTime: Int64 = .min
    /// Bandwidth probes (`MediaTransport+Probing.swift`) and the packets they sent.
    var probesStarted = 0
    var probesSucceeded = 0
    var probesFailed = 0
    var probePacketsSent = 0
    /// The pacer (`MediaTransport+Pacing.swift`): packets that waited in it, packets sent at
    /// once because its ring or the worker's pool was full, packets that could not be sent when
    /// their turn came (the transport no longer connected), packets dropped because the backlog
    /// outgrew `TransportPacer.maxQueueTime` while congested, and the longest wait, µs.
    var pacedPackets = 0
    var pacerOverflows = 0
    var pacerDrops = 0
    var pacerSendFailures = 0
    var pacerDelayMax: Int64 = 0
}

/// One participant's `PeerTransport` as the SFU sees it: the producers it publishes (found by
/// SSRC, or by mid/rid for the first packets) and the consumers it subscribes with (found by their
/// SSRC when RTCP feedback names them), plus transport-wide state: incoming transport-cc arrivals,
/// outgoing transport-wide sequence numbers, the bandwidth estimate, counters.
///
/// It is the transport's delegate: packets arrive here on the I/O thread, decrypted in place.
final class MediaTransport: PeerTransportDelegate {
    let id: TransportID
    let participant: ParticipantID
    /// Unchecked (read for every packet): SFUCore closes a router's transports before the router
    /// (the invariant is written where `Consumer` declares its back references).
    unowned(unsafe) let router: Router
    let sink: PacketSink
    /// The RTCP sender SSRC of the SFU on this transport.
    let rtcpSSRC: UInt32
    var configuration: SFUConfiguration { router.configuration }

    private(set) var producers: [Producer] = []
    private var streamsBySSRC: [UInt32: ProducerStream] = [:]
    private(set) var consumers: [Consumer] = []
    private var consumersBySSRC: [UInt32: Consumer] = [:]
    // Per-copy state (counters, transport-wide numbering, pacer budget), I/O thread only: no
    // dynamic exclusivity check (see `Consumer.paused`).
    @exclusivity(unchecked) var counters = TransportCounters()
    /// Mirrors the `PeerTransport` state (set directly by tests that use another sink). The
    /// timers run only while connected: a change wakes them.
    var state: PeerTransport.State = .new { didSet { wakeTimers() } }
    /// The peer transport, for closing it; nil with a test sink or a pipe.
    var peer: PeerTransport?
    /// Called when the transport closes (a pipe stops being polled).
    var onClose: (() -> Void)?
    /// Whether the transport has data channels (user data is delivered to it).
    var carriesData = false
    /// Whether its participant may publish user data (the token's `publish_data`).
    var dataPublisher = false
    /// Whether it links this router to another node's for the same channel: user data crosses
    /// it as relayed packets (kind 3, `DataPacket.Relayed`), never as deliveries. Set for worker
    /// pipes too; its consumers add RED on the leg's own loss (`Consumer.receivedReport`).
    var dataRelay = false
    @exclusivity(unchecked) private(set) var closed = false
    /// When the participant joined (Unix ms), until the first packet forwarded to them is counted.
    var joinedAt: Int64?

    // Incoming transport-cc: arrivals since the last feedback.
    private(set) var incomingTWCCID: UInt8 = 0
    var arrivals: [TransportCCArrival] = []
    var feedbackMediaSSRC: UInt32 = 0
    var feedbackCount: UInt8 = 0
    var lastFeedbackTime: Int64 = 0
    /// Where the last feedback ended: a late arrival does not take the next one back over it.
    var feedbackWindow = TransportCCWindow()

    // Outgoing: transport-wide numbering, send history, bandwidth.
    @exclusivity(unchecked) private(set) var transportSequence: UInt16 = .random(in: 0 ... .max)
    let sendHistory = TransportSendHistory()
    var bandwidth: BandwidthEstimator
    var firstFeedbackTime: Int64 = .min
    var lastReportTime: Int64 = 0
    var lastAllocationTime: Int64 = 0
    /// Chooses the simulcast layers and when to probe (`MediaTransport+Layers.swift`).
    var allocator = LayerAllocator()
    /// Set while a probe runs.
    var probePacer: ProbePacer?
    /// Paces what the transport sends at its estimate, audio first (`MediaTransport+Pacing.swift`).
    @exclusivity(unchecked) var pacer = TransportPacer()
    /// Whether the router's drain list holds the transport (packets wait in `pacer`).
    var isBacklogged = false
    /// When `tick` next has work, µs (see `MediaTransport+Reports.swift`); `Router.tick` skips
    /// the transport until then.
    var nextTick: Int64 = .min
    var firSequence: [UInt32: UInt8] = [:]
    /// Scratch lists reused by the periodic work.
    var dueNacks: [UInt16] = []

    init(id: TransportID, participant: ParticipantID, router: Router, sink: PacketSink) {
        self.id = id
        self.participant = participant
        self.router = router
        self.sink = sink
        rtcpSSRC = .random(in: 1 ... .max)
        bandwidth = BandwidthEstimator(configuration: router.configuration.bandwidthEstimator)
        arrivals.reserveCapacity(2048)
        dueNacks.reserveCapacity(256)
    }

    // MARK: - PeerTransportDelegate (I/O thread)

    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        self.state = state
        router.emit(.transportStateChanged(id, state))
    }

    /// The subscriber moved to another address (an ICE restart after a network change), or its
    /// ICE restart found its path again: what was sent meanwhile went to the old one or was lost,
    /// so each video consumer asks for a key frame at once.
    /// Without it a browser waits 3 s for a decodable frame before asking itself.
    func peerTransport(_ transport: PeerTransport, didMoveTo address: SocketAddress, from previous: SocketAddress) {
        let now = MediaClock.now()
        for consumer in consumers where consumer.kind == .video { consumer.requestKeyFrame(now: now) }
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        receiveRTP(UnsafeRawBufferPointer(packet), now: MediaClock.now())
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        receiveRTCP(UnsafeRawBufferPointer(packet), now: MediaClock.now())
    }

    /// Binary messages are user data packets the router fans out; other data channel events go
    /// to the server as they are.
    func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {
        guard !closed else { return }
        switch event {
        case .ready: break
        case .opened(let info): router.emit(.dataChannelOpened(id, info))
        case .message(let channel, let data, binary: true):
            data.withUnsafeBytes { router.data.route($0, channel: channel, from: self, among: router.transports) }
        case .message(let channel, let data, binary: false): router.emit(.dataChannelMessage(id, channel: channel, data: data, binary: false))
        case .closed(let channel): router.emit(.dataChannelClosed(id, channel: channel))
        case .shutDown: router.emit(.dataChannelClosed(id, channel: nil))
        }
    }

    // MARK: - RTP in

    /// Demultiplexes one decrypted RTP packet to its producer stream.
    func receiveRTP(_ packet: UnsafeRawBufferPointer, now: Int64) {
        guard !closed else { return }
        counters.lastReceiveTime = now
        guard let view = try? RTPPacketView(packet) else { counters.malformed += 1; return }
        counters.rtpReceived += 1
        counters.bytesReceived += packet.count
        if incomingTWCCID != 0, let value = view.extensionValue(id: incomingTWCCID), value.count == 2 {
            if feedbackMediaSSRC == 0 { feedbackMediaSSRC = view.ssrc }
            if arrivals.count < arrivals.capacity {
                arrivals.append(TransportCCArrival(sequenceNumber: UInt16(value[0]) << 8 | UInt16(value[1]), arrivalTime: now))
            }
        }
        guard let stream = streamsBySSRC[view.ssrc] ?? learnStream(view) else {
            counters.unknownSSRC += 1
            return
        }
        stream.producer.receive(view, stream: stream, now: now)
    }

    /// Finds the stream of a packet with a new SSRC by its mid and rid, and remembers the SSRC.
    private func learnStream(_ view: RTPPacketView) -> ProducerStream? {
        for producer in producers where !producer.closed {
            let midMatch = producer.matchesMid(view)
            if midMatch == false { continue }
            guard let stream = producer.stream(for: view, midMatched: midMatch == true) else { continue }
            if let old = stream.ssrc, old != view.ssrc {
                if streamsBySSRC[old] === stream { streamsBySSRC[old] = nil }
                stream.restart(ssrc: view.ssrc)
            }
            stream.ssrc = view.ssrc
            streamsBySSRC[view.ssrc] = stream
            return stream
        }
        return nil
    }

    // MARK: - Membership

    func add(_ producer: Producer) throws(SFUError) {
        for stream in producer.streams {
            if let ssrc = stream.ssrc, streamsBySSRC[ssrc] != nil { throw .ssrcInUse(ssrc) }
        }
        for stream in producer.streams { if let ssrc = stream.ssrc { streamsBySSRC[ssrc] = stream } }
        if producer.extensionIDs.transportWideCC != 0, producer.feedback.transportCC {
            incomingTWCCID = producer.extensionIDs.transportWideCC
        }
        producers.append(producer)
    }

    func remove(_ producer: Producer) {
        producers.removeAll { $0 === producer }
        for stream in producer.streams { if let ssrc = stream.ssrc, streamsBySSRC[ssrc] === stream { streamsBySSRC[ssrc] = nil } }
    }

    func add(_ consumer: Consumer) throws(SFUError) {
        guard consumersBySSRC[consumer.ssrc] == nil else { throw .ssrcInUse(consumer.ssrc) }
        consumersBySSRC[consumer.ssrc] = consumer
        consumers.append(consumer)
    }

    func remove(_ consumer: Consumer) {
        consumers.removeAll { $0 === consumer }
        if consumersBySSRC[consumer.ssrc] === consumer { consumersBySSRC[consumer.ssrc] = nil }
    }

    func consumer(ssrc: UInt32) -> Consumer? { consumersBySSRC[ssrc] }
    func stream(ssrc: UInt32) -> ProducerStream? { streamsBySSRC[ssrc] }

    /// Whether `ssrc` is free for a new consumer on this transport.
    func isFree(ssrc: UInt32) -> Bool { consumersBySSRC[ssrc] == nil && streamsBySSRC[ssrc] == nil }

    func markClosed() { closed = true }

    // MARK: - Sending bookkeeping (called by consumers)

    @inline(__always)
    func didSend(transportSequence sent: UInt16, size: Int, now: Int64) {
        sendHistory.record(sequenceNumber: sent, sendTime: now, size: size)
        transportSequence = sent &+ 1
    }

    @inline(__always)
    func countSent(bytes: Int) {
        counters.rtpSent += 1
        counters.bytesSent += bytes
        if let joined = joinedAt {
            joinedAt = nil
            router.metrics.joinToFirstPacket.record((MediaClock.unixMilliseconds() - joined) * 1000)
        }
    }
}

extension PeerTransport: PacketSink {
    func sendUserData(_ packet: UnsafeRawBufferPointer, on channel: UInt16) -> Bool {
        (try? sendData(packet, on: channel, binary: true)) != nil
    }
}
