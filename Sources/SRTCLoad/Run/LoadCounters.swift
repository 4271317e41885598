import Foundation
import RTCNet

/// Every counter of a run at one moment; the difference of two is a window's figures.
struct LoadCounters: Sendable {
    var sent = 0
    var publisherNacks = 0
    var publisherKeyFrameRequests = 0
    var retransmissions = 0
    /// By subscribing participant.
    var subscribers: [String: LoadSubscriberSnapshot] = [:]
    /// The kernel-counted subscribers (`LoadRun(kernelCounting:)`), by participant.
    var kernel: [String: KernelCount] = [:]

    /// A kernel-counted subscriber at one moment: the RTP the kernel counted for its port, and
    /// what the publishers it receives had sent, read together.
    struct KernelCount: Sendable {
        var packets: Int
        /// IP datagram lengths.
        var bytes: Int
        var sourceSent: Int

        /// What IP, UDP and the SRTP tag (AES-GCM, 16 bytes) add to an RTP packet's bytes.
        static let overhead = 20 + 8 + 16
    }

    /// Per-stream counters of one subscriber, minus those of an earlier snapshot.
    private struct Delta {
        var received = 0, bytes = 0, expected = 0, lost = 0, nacks = 0, nacked = 0, recovered = 0, plis = 0
        var streams = 0

        mutating func add(_ now: LoadReceivedStream.Statistics, minus before: LoadReceivedStream.Statistics?) {
            received += now.received - (before?.received ?? 0)
            bytes += now.bytes - (before?.bytes ?? 0)
            expected += (now.sourceSent ?? now.expected) - (before.map { $0.sourceSent ?? $0.expected } ?? 0)
            lost += now.lost - (before?.lost ?? 0)
            nacks += now.nacksSent - (before?.nacksSent ?? 0)
            nacked += now.nackedPackets - (before?.nackedPackets ?? 0)
            recovered += now.recovered - (before?.recovered ?? 0)
            plis += now.plisSent - (before?.plisSent ?? 0)
            streams += 1
        }
    }

    /// One subscriber's counters since `earlier`: from the kernel's counter when both moments
    /// have it (the subscriber itself counts nothing then: its loss is what its publishers sent
    /// and the kernel did not count), else from its own streams.
    private func delta(of uid: String, since earlier: LoadCounters) -> Delta {
        var own = Delta()
        let snapshot = subscribers[uid]
        if let now = kernel[uid], let before = earlier.kernel[uid] {
            own.received = now.packets - before.packets
            own.bytes = now.bytes - before.bytes - own.received * KernelCount.overhead
            own.expected = now.sourceSent - before.sourceSent
            own.lost = max(0, own.expected - own.received)
            own.streams = snapshot?.streams.count ?? 0
            return own
        }
        let before = earlier.subscribers[uid]?.streams ?? []
        for stream in snapshot?.streams ?? [] {
            own.add(stream, minus: before.first { $0.mid == stream.mid && $0.kind == stream.kind })
        }
        return own
    }

    private func delta(since earlier: LoadCounters) -> (total: Delta, worst: Double) {
        var total = Delta()
        var worst = 1.0
        for uid in subscribers.keys {
            let own = delta(of: uid, since: earlier)
            if own.expected > 0 { worst = min(worst, Double(own.received) / Double(own.expected)) }
            total.received += own.received; total.bytes += own.bytes; total.expected += own.expected
            total.lost += own.lost; total.nacks += own.nacks; total.nacked += own.nacked
            total.recovered += own.recovered; total.plis += own.plis; total.streams += own.streams
        }
        return (total, worst)
    }

    /// Packets and bytes each subscribing participant received since `earlier`.
    func received(since earlier: LoadCounters) -> [String: (packets: Int, bytes: Int)] {
        var result: [String: (packets: Int, bytes: Int)] = [:]
        for uid in subscribers.keys {
            let own = delta(of: uid, since: earlier)
            result[uid] = (own.received, own.bytes)
        }
        return result
    }

    func report(since start: LoadCounters, seconds: Double, run: LoadRun) -> LoadReport {
        let (d, worst) = delta(since: start)
        var latency = LogHistogram()
        var firstPacket = LogHistogram()
        for snapshot in subscribers.values {
            latency.merge(snapshot.latency)
            for stream in snapshot.streams { if let delay = stream.firstPacketDelay { firstPacket.record(delay) } }
        }
        return LoadReport(
            target: run.target.name, scenario: run.scenario, setupSeconds: (run.setupSeconds * 10).rounded() / 10,
            seconds: (seconds * 100).rounded() / 100, publishers: run.publisherCount, subscribers: run.subscriberCount,
            streams: d.streams, packetsSent: sent - start.sent, packetsExpected: d.expected, packetsReceived: d.received,
            bytesReceived: d.bytes, receiveRate: (Double(d.received) / max(0.001, seconds)).rounded(),
            receiveBitrate: (Double(d.bytes * 8) / max(0.001, seconds)).rounded(), packetsLost: d.lost,
            delivery: d.expected > 0 ? Double(d.received) / Double(d.expected) : 0, worstSubscriberDelivery: worst,
            lossRate: d.received + d.lost > 0 ? Double(d.lost) / Double(d.received + d.lost) : 0,
            nacksSent: d.nacks, nackedPackets: d.nacked, recoveredPackets: d.recovered, plisSent: d.plis,
            publisherNacks: publisherNacks - start.publisherNacks,
            publisherKeyFrameRequests: publisherKeyFrameRequests - start.publisherKeyFrameRequests,
            retransmissions: retransmissions - start.retransmissions,
            latency: LoadReport.Delays(latency), firstPacket: LoadReport.Delays(firstPacket), failures: run.failureList)
    }

    /// `[  3s] srtc 1→50: 50/50 connected | rx 5480 pkt/s 4.62 Mbit/s | loss 0.00% | nack 0 pli 0 | delay p50 0.42 ms p99 1.10 ms`
    static func progressLine(second: Double, scenario: LoadScenario, target: String,
                             previous: LoadCounters, current: LoadCounters) -> String {
        let (d, _) = current.delta(since: previous)
        var latency = LogHistogram()
        for snapshot in current.subscribers.values { latency.merge(snapshot.latency) }
        let connected = current.subscribers.values.filter(\.connected).count
        let loss = d.received + d.lost > 0 ? 100 * Double(d.lost) / Double(d.received + d.lost) : 0
        return String(format: "[%4.0fs] ", second) + "\(target) \(scenario.label): \(connected)/\(current.subscribers.count) connected | "
            + String(format: "rx %.0f pkt/s %.2f Mbit/s | loss %.2f%% | nack %d pli %d | delay p50 %.2f ms p99 %.2f ms",
                     Double(d.received), Double(d.bytes * 8) / 1e6, loss, d.nacks, d.plis,
                     Double(latency.percentile(0.5)) / 1000, Double(latency.percentile(0.99)) / 1000)
    }
}
