#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RTCNet
import Synchronization

/// Gathers `SFUMetrics` on the I/O thread: the distributions as they are observed, the counters of
/// transports that closed (so totals never go backwards), and once a second a published copy
/// that any thread may read. I/O thread only, except `published`.
// @unchecked Sendable: the histograms and counters are touched only on the I/O thread; other threads read `published` (Mutex).
final class SFUMetricsRecorder: @unchecked Sendable {
    /// Distributions, recorded as reports and packets are handled.
    var subscriberLoss = LogHistogram()
    var subscriberJitter = LogHistogram()
    var subscriberRTT = LogHistogram()
    var bandwidthEstimate = LogHistogram()
    var joinToFirstPacket = LogHistogram()
    /// Arrival to the kernel taking each forwarded copy, µs: timed by the send queue, which alone
    /// sees the `sendmmsg` return (`MediaPort.sendLatency`; empty without a port, as in tests).
    var forwardingLatency: () -> LogHistogram = { LogHistogram() }
    /// The port's unrouted datagrams and send drops (`MediaPort`; zeros without a port).
    var portCounters: () -> (unrouted: Int, sendDrops: Int) = { (0, 0) }
    /// Counters of transports that closed.
    private var retired = SFUMetrics.Counters()
    private let published = Mutex(SFUMetrics())
    private var lastPublish: (wall: Int64, cpu: Int64, forwarded: Int)?

    /// The copy published last (any thread).
    var latest: SFUMetrics { published.withLock { $0 } }

    func retire(_ counters: TransportCounters) {
        retired.add(counters.metricCounters)
    }

    /// Publishes a copy when a second passed since the last one (I/O thread).
    func publishIfDue(now: Int64, core: SFUCore) {
        if let last = lastPublish, now - last.wall < 1_000_000 { return }
        let cpu = Self.threadCPU()
        var snapshot = SFUMetrics()
        snapshot.counters = retired
        var participants = Set<ParticipantID>()
        for transport in core.transports.values {
            snapshot.counters.add(transport.counters.metricCounters)
            participants.insert(transport.participant)
            if transport.consumers.contains(where: { !$0.closed }), let estimate = transport.usableEstimate(now: now) {
                bandwidthEstimate.record(Int64(estimate / 1000))
            }
        }
        snapshot.routers = core.routers.count
        snapshot.transports = core.transports.count
        snapshot.participants = participants.count
        snapshot.producers = core.producers.count
        snapshot.consumers = core.consumers.count
        // Merged into the snapshot's own buffers, not assigned: a shared buffer would make the
        // next `record` on the packet path copy it (copy-on-write), an allocation per second.
        snapshot.subscriberLoss.merge(subscriberLoss)
        snapshot.subscriberJitter.merge(subscriberJitter)
        snapshot.subscriberRTT.merge(subscriberRTT)
        snapshot.bandwidthEstimate.merge(bandwidthEstimate)
        snapshot.joinToFirstPacket.merge(joinToFirstPacket)
        snapshot.forwardingLatency.merge(forwardingLatency())
        var worker = SFUMetrics.Worker()
        worker.forwardedPackets = snapshot.counters.rtpPacketsOut
        worker.cpuSeconds = Double(cpu) / 1e6
        if let last = lastPublish {
            let elapsed = Double(max(1, now - last.wall))
            worker.busyRatio = min(1, Double(cpu - last.cpu) / elapsed)
            worker.forwardedPerSecond = Double(max(0, worker.forwardedPackets - last.forwarded)) * 1e6 / elapsed
        }
        lastPublish = (now, cpu, worker.forwardedPackets)
        worker.transports = snapshot.transports
        worker.routers = snapshot.routers
        (worker.unroutedDatagrams, worker.sendQueueDrops) = portCounters()
        worker.retransmissions = snapshot.counters.retransmissions
        for transport in core.transports.values {
            guard let pipe = transport.sink as? PipeSink else { continue }
            worker.pipes += 1
            worker.pipeDrops += pipe.droppedCount
        }
        snapshot.workers = [worker]
        published.withLock { $0 = snapshot }
    }

    /// CPU time of the calling (I/O) thread, µs.
    static func threadCPU() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}

extension TransportCounters {
    /// This transport's share of the SFU totals.
    var metricCounters: SFUMetrics.Counters {
        var c = SFUMetrics.Counters()
        c.rtpPacketsIn = rtpReceived; c.rtpBytesIn = bytesReceived; c.rtcpPacketsIn = rtcpReceived
        c.rtpPacketsOut = rtpSent; c.rtpBytesOut = bytesSent; c.rtcpPacketsOut = rtcpSent
        c.nacksReceived = nacksReceived; c.retransmissions = retransmissions; c.nacksSent = nacksSent
        c.plisReceived = plisReceived; c.firsReceived = firsReceived; c.plisSent = plisSent; c.firsSent = firsSent
        c.unknownSSRC = unknownSSRC; c.malformed = malformed
        c.red = red
        return c
    }
}
