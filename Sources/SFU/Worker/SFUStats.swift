import RTCTransport

/// A consumer's counters.
public struct ConsumerStats: Hashable, Sendable {
    public var ssrc: UInt32
    public var packetsSent: Int
    public var bytesSent: Int
    public var retransmissions: Int
    public var nacksReceived: Int
    public var keyFrameRequestsReceived: Int
    /// The simulcast layer forwarded now (its name), if any.
    public var currentLayer: String?
    /// The layer being switched to, if different.
    public var targetLayer: String?
    public var paused: Bool
    /// Fraction lost from the subscriber's last receiver report, 0…1.
    public var lossRate: Double
    public var rttMs: Double?
    /// Whether plain Opus goes to this subscriber wrapped in RED now (`Consumer.addsRED`), and
    /// how many packets went so.
    public var addsRED: Bool
    public var redWrapped: Int

    init(_ consumer: Consumer) {
        ssrc = consumer.ssrc
        packetsSent = consumer.counters.packetsSent
        bytesSent = consumer.counters.bytesSent
        retransmissions = consumer.counters.retransmissions
        nacksReceived = consumer.counters.nacksReceived
        keyFrameRequestsReceived = consumer.counters.keyFrameRequestsReceived
        let streams = consumer.producer.streams
        currentLayer = consumer.currentLayer.flatMap { streams.indices.contains($0) ? streams[$0].layerName : nil }
        if let simulcast = consumer as? SimulcastConsumer, let target = simulcast.targetLayer, streams.indices.contains(target) {
            targetLayer = streams[target].layerName
        }
        paused = consumer.paused
        lossRate = Double(consumer.report.fractionLost) / 256
        rttMs = consumer.report.roundTripTime.map { Double($0) / 1000 }
        addsRED = consumer.addsRED
        redWrapped = consumer.counters.redWrapped
    }
}

/// A transport's counters.
public struct TransportStats: Hashable, Sendable {
    public var state: PeerTransport.State
    public var rtpReceived: Int
    public var rtcpReceived: Int
    public var bytesReceived: Int
    public var rtpSent: Int
    public var bytesSent: Int
    /// RTP packets that matched no producer.
    public var unknownSSRC: Int
    /// The bandwidth estimate toward this participant, bits per second (subscribe side).
    public var availableBitrate: Int?

    init(_ transport: MediaTransport, now: Int64) {
        state = transport.state
        rtpReceived = transport.counters.rtpReceived
        rtcpReceived = transport.counters.rtcpReceived
        bytesReceived = transport.counters.bytesReceived
        rtpSent = transport.counters.rtpSent
        bytesSent = transport.counters.bytesSent
        unknownSSRC = transport.counters.unknownSSRC
        availableBitrate = transport.usableEstimate(now: now)
    }
}
