import RTCWire
import Testing
@testable import SFU

/// RED added by the SFU (docs/network.md, "RED added by the SFU"): a publisher sends plain Opus;
/// a subscriber that negotiated RED and whose receiver reports show loss at 5 % or more gets
/// each packet in RED with the previous one as a redundant block (RFC 2198 §3), and plain Opus
/// again once its reports have stayed below 2 % for 10 s. A subscriber without RED never gets it.
struct REDAddedBySFUTests {
    typealias H = SFUHarness
    typealias Forwarding = REDForwardingTests

    /// A receiver report from bob's (the RED subscriber's) transport about his audio stream.
    static func bobReports(_ h: SFUHarness, fractionLost: UInt8) {
        h.subscriberRTCP([.receiverReport(ReceiverReport(ssrc: 0xB0B, reports: [ReceptionReport(ssrc: 0xAAAA, fractionLost: fractionLost)]))])
    }

    static func plain(_ seq: UInt16, _ byte: UInt8, padding: UInt8 = 0) -> [UInt8] {
        Forwarding.packet(pt: 111, seq, ts: UInt32(seq) * 960, payload: [0xF8, byte], padding: padding)
    }

    @Test func aLossyREDSubscriberGetsPlainOpusInREDWithThePreviousPacketAsRedundantBlock() throws {
        let (h, carol, carolTransport) = try Forwarding().harness(publisherRED: false)
        h.publish(Self.plain(1, 1))
        h.publish(Self.plain(2, 2))
        // Loss just below the threshold changes nothing.
        Self.bobReports(h, fractionLost: 12)
        h.publish(Self.plain(3, 3))
        #expect(h.subscriberSink.packets.map(\.payloadType) == [109, 109, 109])

        Self.bobReports(h, fractionLost: 40)
        RTCPCompound.serialize([.receiverReport(ReceiverReport(ssrc: 0xC, reports: [ReceptionReport(ssrc: 0xCCCC, fractionLost: 100)]))])
            .withUnsafeBytes { carolTransport.receiveRTCP($0, now: h.now) }
        h.publish(Self.plain(4, 4, padding: 3))
        h.publish(Self.plain(5, 5))
        h.publish(Self.plain(7, 7))      // 6 never reached the SFU: 7 has no block for it

        let bob = h.subscriberSink.packets
        try #require(bob.count == 6)
        #expect(bob.map(\.payloadType) == [109, 109, 109, 110, 110, 110])
        // F=1, block PT 109, offset 960 (14 bits), length 2; then the primary's header, 3's
        // data and 4's (its padding left out).
        #expect(bob[3].payload == [0x80 | 109, 0x0F, 0x00, 2, 109, 0xF8, 3, 0xF8, 4])
        #expect(bob[3].paddingLength == 0)
        #expect(bob[4].payload == [0x80 | 109, 0x0F, 0x00, 2, 109, 0xF8, 4, 0xF8, 5])
        #expect(bob[5].payload == [109, 0xF8, 7])
        #expect(bob.map { $0.timestamp &- bob[0].timestamp } == [0, 960, 1920, 2880, 3840, 5760])
        // Nothing to read for the redundant block but the header: the receiver rebuilds 3 from 4.
        let view = try bob[4].payload.withUnsafeBytes { raw in
            let red = try REDPayloadView(raw)
            return (red.redundantCount, red.redundant(0).timestampOffset, Array(red.data(red.redundant(0))), Array(red.data(red.primary)))
        }
        #expect(view.0 == 1 && view.1 == 960 && view.2 == [0xF8, 4] && view.3 == [0xF8, 5])

        // Carol did not negotiate RED: plain whatever her loss.
        #expect(carol.packets.map(\.payloadType) == [109, 109, 109, 109, 109, 109])
        #expect(carol.packets.map(\.payload) == [[0xF8, 1], [0xF8, 2], [0xF8, 3], [0xF8, 4], [0xF8, 5], [0xF8, 7]])

        // A NACKed wrapped packet is resent as the plain packet, with its number and timestamp.
        h.subscriberSink.rtp.removeAll()
        h.advance(ms: 30)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [bob[4].sequenceNumber]))])
        let resent = try #require(h.subscriberSink.packets.first)
        #expect(resent.payloadType == 109 && resent.payload == [0xF8, 5])
        #expect(resent.sequenceNumber == bob[4].sequenceNumber && resent.timestamp == bob[4].timestamp)
    }

    @Test func redIsAddedUntilTheReportsStayBelowTwoPercentForTenSeconds() throws {
        let (h, _, _) = try Forwarding().harness(publisherRED: false)
        var seq: UInt16 = 1
        func send() -> UInt8 {
            h.subscriberSink.rtp.removeAll()
            h.publish(Self.plain(seq, UInt8(truncatingIfNeeded: seq)))
            seq += 1
            return h.subscriberSink.packets.last?.payloadType ?? 0
        }
        #expect(send() == 109)
        Self.bobReports(h, fractionLost: 13)
        #expect(send() == 110)
        // Low loss starts the hold; a report between the thresholds ends it.
        Self.bobReports(h, fractionLost: 2)
        h.advance(ms: 6000)
        Self.bobReports(h, fractionLost: 8)
        h.advance(ms: 6000)
        Self.bobReports(h, fractionLost: 0)
        #expect(send() == 110)
        h.advance(ms: 9000)
        Self.bobReports(h, fractionLost: 4)
        #expect(send() == 110)
        h.advance(ms: 1000)
        Self.bobReports(h, fractionLost: 0)
        #expect(send() == 109)
        // And back on with the next lossy report.
        Self.bobReports(h, fractionLost: 30)
        #expect(send() == 110)
        let stats = ConsumerStats(try #require(h.core.consumers["bob/mic"]))
        #expect(stats.addsRED && stats.redWrapped == 4)
    }

    /// A subscriber that NACKs reports the packets resent to it as received: the share it asked
    /// for again counts as its loss. 10 of 50 packets NACKed (20 %) with a report of no loss turns
    /// RED on; a NACK repeated for the same packet counts once; 1 of 50 (2 %) does not.
    @Test func packetsAskedForByNACKCountAsLoss() throws {
        let (h, _, _) = try Forwarding().harness(publisherRED: false)
        var seq: UInt16 = 1
        func sendFifty() -> [UInt16] {
            h.subscriberSink.rtp.removeAll()
            for _ in 0 ..< 50 {
                h.publish(Self.plain(seq, UInt8(truncatingIfNeeded: seq)))
                seq += 1
            }
            return h.subscriberSink.packets.map(\.sequenceNumber)
        }
        func nack(_ lost: [UInt16]) {
            h.advance(ms: 20)
            h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: lost))])
        }
        func lastPayloadType() -> UInt8 {
            h.subscriberSink.rtp.removeAll()
            h.publish(Self.plain(seq, UInt8(truncatingIfNeeded: seq)))
            seq += 1
            return h.subscriberSink.packets.last?.payloadType ?? 0
        }
        Self.bobReports(h, fractionLost: 0)   // the interval starts
        var sent = sendFifty()
        nack([sent[3]])
        nack([sent[3]])                        // asked again: still one packet
        Self.bobReports(h, fractionLost: 0)
        #expect(lastPayloadType() == 109)

        sent = sendFifty()
        nack(stride(from: 0, to: 50, by: 5).map { sent[$0] })
        Self.bobReports(h, fractionLost: 0)
        #expect(lastPayloadType() == 110)
    }

    @Test func redFromThePublisherIsForwardedAsItCameWhateverTheLoss() throws {
        let (h, _, _) = try Forwarding().harness(publisherRED: true)
        Self.bobReports(h, fractionLost: 60)
        h.publish(Forwarding.packet(pt: 63, 1, ts: 0, payload: Forwarding.red(primary: [0xF8, 1], redundant: nil)))
        h.publish(Forwarding.packet(pt: 111, 2, ts: 960, payload: [0xF8, 2]))   // plain between: wrapped
        h.publish(Forwarding.packet(pt: 63, 3, ts: 1920, payload: Forwarding.red(primary: [0xF8, 3], redundant: [0xF8, 2])))
        let bob = h.subscriberSink.packets
        #expect(bob.map(\.payloadType) == [110, 110, 110])
        #expect(bob[0].payload == [109, 0xF8, 1])
        // The previous packet came as RED: its primary block is the redundant one.
        #expect(bob[1].payload == [0x80 | 109, 0x0F, 0x00, 2, 109, 0xF8, 1, 0xF8, 2])
        #expect(bob[2].payload == [0x80 | 109, 0x0F, 0x00, 2, 109, 0xF8, 2, 0xF8, 3])
    }
}
