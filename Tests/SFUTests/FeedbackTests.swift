import RTCWire
import Testing
@testable import SFU

/// RTCP both ways: NACK answered from the cache, NACK and PLI sent upstream, transport-cc
/// feedback to the publisher, receiver and sender reports with RTT.
struct FeedbackTests {
    typealias H = SFUHarness

    static func videoProducer(ssrc: UInt32 = 0x2222) -> RTPParameters {
        RTPParameters(mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: H.publisherExtensions,
                      encodings: [RTPEncodingParameters(ssrc: ssrc)])
    }

    static func vp8(_ seq: UInt16, ts: UInt32, picture: UInt16, key: Bool = false, twcc: UInt16? = nil) -> [UInt8] {
        var extensions: [(UInt8, [UInt8])] = []
        if let twcc { extensions.append((H.pubTWCC, PacketFactory.be16(twcc))) }
        return PacketFactory.rtp(pt: 96, seq: seq, ts: ts, ssrc: 0x2222, extensions: extensions,
                                 payload: PacketFactory.vp8(pictureID: picture, keyFrame: key))
    }

    func videoHarness() throws -> SFUHarness {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.videoProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam",
                               parameters: H.subscriberParameters(kind: .video), preferredLayer: nil, paused: false, now: h.now)
        return h
    }

    @Test func videoStartsOnAKeyFrameAndTheSubscriptionAsksForOne() throws {
        let h = try videoHarness()
        // Consuming asked for a key frame: a PLI for the publisher's SSRC.
        #expect(h.publisherSink.rtcpPackets == [.pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x2222))])
        h.publish(Self.vp8(1, ts: 0, picture: 10))
        h.publish(Self.vp8(2, ts: 3000, picture: 11, key: true))
        h.publish(Self.vp8(3, ts: 6000, picture: 12))
        #expect(h.subscriberSink.packets.map(\.timestamp) == [3000, 6000])
    }

    @Test func aSubscriberNackIsAnsweredWithTheSameRewrittenPacket() throws {
        let h = try videoHarness()
        for i in 0 ..< 5 { h.publish(Self.vp8(UInt16(100 + i), ts: UInt32(i) * 3000, picture: UInt16(i), key: i == 0)) }
        let sent = h.subscriberSink.packets
        try #require(sent.count == 5)
        h.subscriberSink.clear()
        h.advance(ms: 30)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA,
                                                   lost: [sent[1].sequenceNumber, sent[3].sequenceNumber]))])
        let resent = h.subscriberSink.packets
        try #require(resent.count == 2)
        for (again, original) in zip(resent, [sent[1], sent[3]]) {
            #expect(again.sequenceNumber == original.sequenceNumber)
            #expect(again.timestamp == original.timestamp)
            #expect(again.ssrc == 0xAAAA)
            #expect(again.payload == original.payload)
            // A fresh transport-wide number: the retransmission is a new packet on the wire.
            #expect(again.extensionValue(id: H.subTWCC) != original.extensionValue(id: H.subTWCC))
        }
        // The same NACK again within one RTT is not answered twice.
        h.subscriberSink.clear()
        h.advance(ms: 1)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [sent[1].sequenceNumber]))])
        #expect(h.subscriberSink.rtp.isEmpty)
    }

    @Test func aSubscriberPLIReachesThePublisherThrottled() throws {
        let h = try videoHarness()
        h.publish(Self.vp8(1, ts: 0, picture: 1, key: true))
        h.publisherSink.clear()
        h.advance(ms: 500)
        let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA))
        h.subscriberRTCP([pli])
        h.advance(ms: 100)
        h.subscriberRTCP([pli])  // within 300 ms: held back…
        let expected = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x2222))
        #expect(h.publisherSink.rtcpPackets == [expected])
        h.advance(ms: 250)
        h.tick()                  // …and sent once the interval has passed.
        #expect(h.publisherSink.rtcpPackets.filter { $0 == expected }.count == 2)
    }

    /// A publisher may drop a key-frame request: Chrome takes one per 300 ms per track, counted
    /// from the last it took. A second subscriber arriving 150 ms after the first has its request
    /// let through (the first one was answered) and lost there, while the publisher goes on with
    /// delta frames (a shared screen or a camera without simulcast: no periodic key frames). The
    /// consumer waiting for its first key frame asks again after a second, and starts on the answer.
    /// Before, it asked once and forwarded nothing for good (the browser test's share tile with no
    /// packet, `receipt: null`).
    @Test func aConsumerWaitingForItsFirstKeyFrameAsksAgainUntilOneComes() throws {
        let h = try videoHarness()
        h.publish(Self.vp8(1, ts: 0, picture: 1, key: true))   // the answer to bob's request
        h.advance(ms: 150)
        let carolSink = RecordingSink()
        try h.core.createTransport("carol/sub", router: "room", participant: "carol", sink: carolSink, now: h.now).state = .connected
        _ = try h.core.consume("carol/cam", transport: "carol/sub", producer: "cam",
                               parameters: H.subscriberParameters(kind: .video, ssrc: 0xCCCC), preferredLayer: nil, paused: false, now: h.now)
        let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x2222))
        var plis: Int { h.publisherSink.rtcpPackets.filter { $0 == pli }.count }
        #expect(plis == 1, "carol's request waits until 300 ms after bob's, which a browser would drop sooner")
        // It goes out then, and the publisher drops it anyway: a second of delta frames, 20 ms apart.
        var seq: UInt16 = 2
        func frame(key: Bool = false) {
            h.publish(Self.vp8(seq, ts: UInt32(seq) * 1800, picture: seq, key: key))
            seq += 1
        }
        for _ in 0 ..< 49 {
            h.advance(ms: 20)
            frame()
            h.tick()
        }
        #expect(carolSink.rtp.isEmpty && plis == 2, "980 ms: still waiting, not asked again yet")
        h.advance(ms: 20)
        h.tick()
        #expect(plis == 3, "asked again a second after the first request")
        frame(key: true)
        frame()
        #expect(carolSink.packets.map(\.timestamp) == [51 * 1800, 52 * 1800])
        // Started: no more asking.
        for _ in 0 ..< 100 {
            h.advance(ms: 20)
            frame()
            h.tick()
        }
        #expect(plis == 3 && carolSink.rtp.count == 102)
    }

    @Test func gapsFromThePublisherAreNackedUpstream() throws {
        let h = try videoHarness()
        h.publish(Self.vp8(10, ts: 0, picture: 1, key: true))
        h.publish(Self.vp8(13, ts: 3000, picture: 2))
        h.publisherSink.clear()
        h.advance(ms: 20)
        h.tick()
        let nacks = h.publisherSink.rtcpPackets.compactMap { if case .nack(let n) = $0 { return n } else { return nil } }
        #expect(nacks == [TransportLayerNack(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x2222, lost: [11, 12])])
        // 12 arrives (retransmitted); after the default RTT only 11 is asked again.
        h.publish(Self.vp8(12, ts: 3000, picture: 2))
        h.publisherSink.clear()
        h.advance(ms: 100)
        h.tick()
        let again = h.publisherSink.rtcpPackets.compactMap { if case .nack(let n) = $0 { return n } else { return nil } }
        #expect(again.map(\.lostSequenceNumbers) == [[11]])
    }

    @Test func transportFeedbackDescribesTheArrivalsItRecorded() throws {
        let h = try videoHarness()
        h.publisherSink.clear()
        // Transport-wide 500, 501, (502 lost), 503, arriving 0, 1, 5 ms apart.
        h.publish(Self.vp8(1, ts: 0, picture: 1, key: true, twcc: 500))
        h.advance(ms: 1)
        h.publish(Self.vp8(2, ts: 0, picture: 1, twcc: 501))
        h.advance(ms: 5)
        h.publish(Self.vp8(3, ts: 0, picture: 1, twcc: 503))
        let lastArrival = h.now
        h.advance(ms: 60)
        h.tick()
        let feedback = h.publisherSink.rtcpPackets.compactMap { if case .transportCC(let f) = $0 { return f } else { return nil } }
        try #require(feedback.count == 1)
        let cc = feedback[0]
        #expect(cc.senderSSRC == h.publisher.rtcpSSRC)
        #expect(cc.mediaSSRC == 0x2222)
        #expect(cc.baseSequenceNumber == 500)
        #expect(cc.packetStatusCount == 4)
        #expect(cc.feedbackPacketCount == 0)
        let results = cc.packetResults
        #expect(results.map(\.status) == [.receivedSmallDelta, .receivedSmallDelta, .notReceived, .receivedSmallDelta])
        // Arrival times keep their spacing in 250 µs ticks.
        let times = results.compactMap(\.arrivalTime)
        #expect(times.count == 3)
        #expect(times[1] - times[0] == 1000 && times[2] - times[1] == 5000)
        // Absolute times: our clock, floored to 250 µs and wrapped like the 24-bit reference time.
        #expect(times[2] % (64_000 << 24) == (lastArrival / 250 * 250) % (64_000 << 24))
        // Nothing new: no feedback; next one counts up.
        h.advance(ms: 60)
        h.tick()
        #expect(h.publisherSink.rtcpPackets.filter { if case .transportCC = $0 { return true } else { return false } }.count == 1)
        h.publish(Self.vp8(4, ts: 0, picture: 1, twcc: 504))
        h.advance(ms: 60)
        h.tick()
        let second = h.publisherSink.rtcpPackets.compactMap { if case .transportCC(let f) = $0 { return f } else { return nil } }
        #expect(second.last?.feedbackPacketCount == 1)
        #expect(second.last?.baseSequenceNumber == 504)
    }

    @Test func reportsCarryReceptionStatsAndRoundTripTime() throws {
        let h = try videoHarness()
        // The publisher's SR, then packets 1…10 with 4 and 5 lost.
        let srNTP: UInt64 = 0xE000_0000_8000_0000
        h.publisherRTCP([.senderReport(SenderReport(ssrc: 0x2222, ntpTime: NTPTime(rawValue: srNTP), rtpTime: 0,
                                                    packetCount: 0, octetCount: 0))])
        for seq: UInt16 in [1, 2, 3, 6, 7, 8, 9, 10] {
            h.publish(Self.vp8(seq, ts: UInt32(seq) * 3000, picture: seq, key: seq == 1))
        }
        h.publisherSink.clear()
        h.subscriberSink.clear()
        h.advance(ms: 1000)
        h.tick()
        let rr = h.publisherSink.rtcpPackets.compactMap { if case .receiverReport(let r) = $0 { return r } else { return nil } }
        try #require(rr.count == 1)
        let block = try #require(rr[0].reports.first)
        #expect(block.ssrc == 0x2222)
        #expect(block.lastSequenceNumber == 10)
        #expect(block.totalLost == 2)
        #expect(block.fractionLost == 2 * 256 / 10)
        #expect(block.lastSenderReport == 0x0000_8000)  // middle 32 bits of the SR's NTP time
        #expect(block.delay == 65_536)                  // one second since that SR
        // Our SR to the subscriber, mapped from the publisher's SR into the consumer's timestamps.
        let sr = h.subscriberSink.rtcpPackets.compactMap { if case .senderReport(let s) = $0 { return s } else { return nil } }
        let report = try #require(sr.first)
        #expect(report.ssrc == 0xAAAA)
        #expect(report.packetCount == 8)
        #expect(report.ntpTime.rawValue == srNTP &+ (UInt64(1) << 32))
        #expect(report.rtpTime == 90_000)
        // The subscriber answers 30 ms later with 10 ms of DLSR: RTT 20 ms.
        h.advance(ms: 30)
        h.subscriberRTCP([.receiverReport(ReceiverReport(ssrc: 0xB0B, reports: [
            ReceptionReport(ssrc: 0xAAAA, fractionLost: 64, totalLost: 3, lastSequenceNumber: 0, jitter: 90,
                            lastSenderReport: report.ntpTime.middle32, delay: 655)])) ])
        let consumer = try #require(h.core.consumers["bob/cam"])
        #expect(consumer.report.fractionLost == 64)
        let rtt = try #require(consumer.report.roundTripTime)
        #expect(abs(rtt - 20_000) < 100)
    }
}
