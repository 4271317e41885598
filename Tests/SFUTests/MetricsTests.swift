import RTCWire
import Testing
@testable import SFU

/// The figures `/metrics` shows, as the SFU publishes them once a second: packet and feedback
/// counters that never go backwards, and the distributions of subscribers' reports.
struct MetricsTests {
    typealias H = SFUHarness

    @Test func countersAndReportDistributionsArePublishedOnceASecond() throws {
        let h = try FeedbackTests().videoHarness()
        for i in 0 ..< 4 { h.publish(FeedbackTests.vp8(UInt16(200 + i), ts: UInt32(i) * 3000, picture: UInt16(i), key: i == 0)) }
        let sent = h.subscriberSink.packets
        try #require(sent.count == 4)
        let arrival = h.now
        h.advance(ms: 10)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [sent[2].sequenceNumber])),
                          .pictureLossIndication(PictureLossIndication(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA))])
        // 64/256 lost (25 %), jitter 900 units of 90 kHz (10 ms).
        h.subscriberRTCP([.receiverReport(ReceiverReport(ssrc: 0xB0B, reports: [
            ReceptionReport(ssrc: 0xAAAA, fractionLost: 64, totalLost: 1, lastSequenceNumber: 0, jitter: 900, lastSenderReport: 0, delay: 0)]))])
        // Nothing is published before the first tick.
        #expect(h.core.metrics.latest == SFUMetrics())
        h.tick()
        let m = h.core.metrics.latest
        #expect(m.counters.rtpPacketsIn == 4)
        #expect(m.counters.rtpPacketsOut == 5)          // four forwarded, one resent
        #expect(m.counters.retransmissions == 1)
        #expect(m.counters.nacksReceived == 1)
        #expect(m.counters.plisReceived == 1)
        #expect(m.counters.plisSent >= 1)               // the subscription asked the publisher for a key frame
        #expect(m.counters.rtcpPacketsIn == 2)
        #expect((m.routers, m.transports, m.participants, m.producers, m.consumers) == (1, 2, 2, 1, 1))
        #expect(m.subscriberLoss.count == 1 && m.subscriberLoss.percentile(0.5) == 250)
        #expect(m.subscriberJitter.count == 1 && m.subscriberJitter.percentile(0.5) == 10_000)
        // Each first send carries its packet's arrival for the port to time (`/metrics`' forwarding
        // latency, measured when the kernel takes it); the resend is not timed.
        #expect(h.subscriberSink.stamps == [arrival, arrival, arrival, arrival, 0])
        #expect(m.busyRatios.count == 1)
        let worker = try #require(m.workers.first)
        #expect((worker.forwardedPackets, worker.transports, worker.routers) == (5, 2, 1))
        #expect(worker.cpuSeconds > 0)

        // A closed transport's packets stay counted.
        h.core.closeTransport("bob/sub")
        h.advance(ms: 1_000)
        h.tick()
        let after = h.core.metrics.latest
        #expect(after.counters.rtpPacketsOut == 5)
        #expect(after.consumers == 0)
        #expect(after.transports == 1)
        // Nothing was forwarded in the second since: the worker's rate (placement's load) is zero.
        #expect(after.workers.first?.forwardedPerSecond == 0)
        #expect(after.workers.first?.transports == 1)
    }

    @Test func theFirstForwardedPacketEndsTheParticipantsJoinToFirstPacketTime() throws {
        let h = try FeedbackTests().videoHarness()
        h.subscriber.joinedAt = MediaClock.unixMilliseconds() - 1_500
        h.publish(FeedbackTests.vp8(1, ts: 0, picture: 1, key: true))
        h.publish(FeedbackTests.vp8(2, ts: 3000, picture: 2))
        h.tick()
        let first = h.core.metrics.latest.joinToFirstPacket
        #expect(first.count == 1)
        #expect(first.percentile(0.5) >= 1_500_000 && first.percentile(0.5) < 1_700_000)
    }
}
