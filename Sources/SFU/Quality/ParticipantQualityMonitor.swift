/// Turns one participant's counters into a `ParticipantQualityReport` every quality interval and
/// keeps its level's hysteresis.
///
/// Upstream is what its transports received: bitrate and packets, loss from the RFC 3550 §A.3
/// expected/received counts of its producer streams, jitter (§A.8, the worst stream). Downstream is
/// what its consumers sent, with loss and jitter from its receiver reports (weighted by packets),
/// and RTT from LSR/DLSR. The level grades the worse loss of the two directions.
struct ParticipantQualityMonitor {
    let participant: ParticipantID
    private(set) var hysteresis = QualityHysteresis()
    private var intervalStart: Int64

    init(participant: ParticipantID, now: Int64) {
        self.participant = participant
        intervalStart = now
    }

    mutating func report(transports: [MediaTransport], now: Int64, unixMilliseconds: Int64,
                         classifier: QualityClassifier = QualityClassifier())
        -> (report: ParticipantQualityReport, change: (level: QualityLevel, previous: QualityLevel)?) {
        let seconds = max(0.001, Double(now - intervalStart) / 1_000_000)
        var up = (bytes: UInt64(0), packets: UInt64(0), expected: UInt64(0), jitter: 0.0)
        var down = (bytes: 0, packets: 0, lostWeighted: 0.0, jitter: 0.0)
        var rtts: [Double] = []
        var heard = false
        var estimate: Int?
        for transport in transports {
            if transport.counters.lastReceiveTime >= intervalStart || transport.state == .connected { heard = true }
            for producer in transport.producers where !producer.closed {
                for stream in producer.streams {
                    let stats = stream.statistics
                    let expected = stats.packetsExpected, received = stats.packetsReceived, bytes = stats.bytesReceived
                    let prior = stream.qualityPrior
                    if expected >= prior.expected, received >= prior.received, bytes >= prior.bytes {
                        up.expected += expected - prior.expected
                        up.packets += received - prior.received
                        up.bytes += bytes - prior.bytes
                    }
                    stream.qualityPrior = (expected, received, bytes)
                    if stream.isActive(now: now) { up.jitter = max(up.jitter, stats.jitterMilliseconds) }
                }
            }
            for consumer in transport.consumers where !consumer.closed {
                let packets = consumer.counters.packetsSent - consumer.qualityPrior.packets
                let bytes = consumer.counters.bytesSent - consumer.qualityPrior.bytes
                consumer.qualityPrior = (consumer.counters.packetsSent, consumer.counters.bytesSent)
                down.packets += packets
                down.bytes += bytes
                if consumer.report.receivedAt >= intervalStart {
                    down.lostWeighted += Double(consumer.report.fractionLost) / 256 * Double(packets)
                    down.jitter = max(down.jitter, Double(consumer.report.jitter) * 1000 / Double(consumer.clockRate))
                }
                if let rtt = consumer.report.roundTripTime { rtts.append(Double(rtt) / 1000) }
            }
            if !transport.consumers.isEmpty, let value = transport.usableEstimate(now: now) { estimate = (estimate ?? 0) + value }
        }
        let upLoss = up.expected > 0 ? Double(up.expected - min(up.expected, up.packets)) / Double(up.expected) : 0
        let downLoss = down.packets > 0 ? down.lostWeighted / Double(down.packets) : 0
        let rtt = rtts.isEmpty ? nil : rtts.reduce(0, +) / Double(rtts.count)
        let measured = classifier.level(lossRate: max(upLoss, downLoss), rttMs: rtt,
                                        jitterMs: max(up.jitter, down.jitter), heardFromPeer: heard)
        let change = hysteresis.update(measured)
        intervalStart = now
        let report = ParticipantQualityReport(
            participant: participant, timestamp: unixMilliseconds,
            upstream: LinkQualityStats(bitrate: Int(Double(up.bytes) * 8 / seconds), packets: Int(up.packets),
                                       lossRate: upLoss, jitterMs: up.jitter),
            downstream: LinkQualityStats(bitrate: Int(Double(down.bytes) * 8 / seconds), packets: down.packets,
                                         lossRate: downLoss, jitterMs: down.jitter),
            rttMs: rtt, availableBitrate: estimate, level: hysteresis.reported)
        return (report, change)
    }
}
