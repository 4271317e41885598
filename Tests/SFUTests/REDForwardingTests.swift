import RTCWire
import Testing
@testable import SFU

/// Redundant audio (RFC 2198) through the SFU: RED from the publisher reaches a subscriber that
/// negotiated RED as RED (block payload types in its numbering) and one that did not as the
/// primary block alone, each with gap-free sequence numbers; plain Opus stays plain.
struct REDForwardingTests {
    typealias H = SFUHarness

    /// A RED payload with one redundant block (RFC 2198 §3), block payload type 111.
    static func red(primary: [UInt8], redundant: [UInt8]?, offset: UInt16 = 960) -> [UInt8] {
        guard let redundant else { return [111] + primary }   // F=0, PT=111: the primary alone
        return [0x80 | 111,                                   // F=1, block PT 111
                UInt8(offset >> 6), UInt8(offset & 0x3F) << 2 | UInt8(redundant.count >> 8),  // 14-bit offset, 10-bit length
                UInt8(redundant.count & 0xFF),
                111]                                          // F=0, primary PT 111
            + redundant + primary
    }

    static func packet(pt: UInt8, _ seq: UInt16, ts: UInt32, payload: [UInt8], padding: UInt8 = 0) -> [UInt8] {
        PacketFactory.rtp(pt: pt, seq: seq, ts: ts, ssrc: 0x1111, extensions: [(H.pubMid, Array("0".utf8))],
                          payload: payload, padding: padding)
    }

    /// Alice publishes Opus 111 with RED 63; bob subscribes with Opus 109 and RED 110, carol
    /// (her own transport) with Opus 109 alone.
    func harness(publisherRED: Bool = true) throws -> (h: SFUHarness, carol: RecordingSink, carolTransport: MediaTransport) {
        let h = try SFUHarness()
        var producer = H.audioProducer()
        // As the server's answer lists them: RED first.
        if publisherRED { producer.codecs.insert(.red(payloadType: 63), at: 0) }
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: producer, muted: false)
        var bob = H.subscriberParameters(kind: .audio)
        bob.codecs.append(.red(payloadType: 110))
        bob.codecs[0].rtcpFeedback.append(.nack)
        let bobInfo = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: bob, preferredLayer: nil,
                                         paused: false, now: h.now)
        #expect(bobInfo.payloadType == 109)
        let carol = RecordingSink()
        let transport = try h.core.createTransport("carol/sub", router: "room", participant: "carol", sink: carol, now: h.now)
        transport.state = .connected
        var plain = H.subscriberParameters(kind: .audio, ssrc: 0xCCCC)
        plain.codecs[0].rtcpFeedback.append(.nack)
        _ = try h.core.consume("carol/mic", transport: "carol/sub", producer: "mic", parameters: plain, preferredLayer: nil,
                               paused: false, now: h.now)
        return (h, carol, transport)
    }

    @Test func redGoesToARedSubscriberAsRedAndToAPlainOneAsItsPrimaryBlock() throws {
        let (h, carol, _) = try harness()
        h.publish(Self.packet(pt: 63, 100, ts: 0, payload: Self.red(primary: [0xF8, 1], redundant: nil)))
        h.publish(Self.packet(pt: 63, 101, ts: 960, payload: Self.red(primary: [0xF8, 2, 2], redundant: [0xF8, 1]), padding: 3))
        h.publish(Self.packet(pt: 111, 102, ts: 1920, payload: [0xF8, 3]))                      // plain Opus between
        h.publish(Self.packet(pt: 63, 103, ts: 2880, payload: Self.red(primary: [0xF8, 4], redundant: [0xF8, 3])))

        let bob = h.subscriberSink.packets
        try #require(bob.count == 4)
        #expect(bob.map(\.payloadType) == [110, 110, 109, 110])
        // The blocks' payload type is bob's Opus (109), the rest of the payload unchanged.
        #expect(bob[0].payload == [109, 0xF8, 1])
        #expect(bob[1].payload == [0x80 | 109, 0x0F, 0x00, 2, 109, 0xF8, 1, 0xF8, 2, 2])
        #expect(bob[1].paddingLength == 3)
        #expect(bob[2].payload == [0xF8, 3])

        let plain = carol.packets
        try #require(plain.count == 4)
        #expect(plain.map(\.payloadType) == [109, 109, 109, 109])
        #expect(plain.map(\.payload) == [[0xF8, 1], [0xF8, 2, 2], [0xF8, 3], [0xF8, 4]])
        #expect(plain[1].paddingLength == 0)
        #expect(plain.map(\.ssrc) == [0xCCCC, 0xCCCC, 0xCCCC, 0xCCCC])
        for out in [bob, plain] {
            #expect(out.map { $0.sequenceNumber &- out[0].sequenceNumber } == [0, 1, 2, 3])
            #expect(out.map { $0.timestamp &- out[0].timestamp } == [0, 960, 1920, 2880])
        }
    }

    @Test func aREDPacketWithNothingToStripToLeavesNoGapForAPlainSubscriber() throws {
        let (h, carol, _) = try harness()
        h.publish(Self.packet(pt: 63, 1, ts: 0, payload: Self.red(primary: [0xF8, 1], redundant: nil)))
        h.publish(Self.packet(pt: 63, 2, ts: 960, payload: [0x80 | 111, 0, 0]))                     // a header cut short
        h.publish(Self.packet(pt: 63, 3, ts: 1920, payload: [0x80 | 111, 0x0F, 0x00, 2, 111, 0xF8, 2]))  // empty primary
        h.publish(Self.packet(pt: 63, 4, ts: 2880, payload: [0x80 | 111, 0x0F, 0x00, 9, 111, 0xF8]))   // block past the end
        h.publish(Self.packet(pt: 63, 5, ts: 3840, payload: Self.red(primary: [0xF8, 5], redundant: nil)))
        let plain = carol.packets
        #expect(plain.map(\.payload) == [[0xF8, 1], [0xF8, 5]])
        #expect(plain.map { $0.sequenceNumber &- plain[0].sequenceNumber } == [0, 1])
        // The RED subscriber gets every packet as sent: its receiver judges them.
        #expect(h.subscriberSink.packets.count == 5)
    }

    @Test func aNACKedPacketIsResentAsFirstSentToEachSubscriber() throws {
        let (h, carol, carolTransport) = try harness()
        h.publish(Self.packet(pt: 63, 10, ts: 0, payload: Self.red(primary: [0xF8, 1], redundant: nil)))
        h.publish(Self.packet(pt: 63, 11, ts: 960, payload: Self.red(primary: [0xF8, 2], redundant: [0xF8, 1])))
        let first = carol.packets
        let bobFirst = h.subscriberSink.packets
        carol.rtp.removeAll()
        h.subscriberSink.rtp.removeAll()
        h.advance(ms: 30)
        RTCPCompound.serialize([.nack(TransportLayerNack(senderSSRC: 0xC, mediaSSRC: 0xCCCC, lost: [first[1].sequenceNumber]))])
            .withUnsafeBytes { carolTransport.receiveRTCP($0, now: h.now) }
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [bobFirst[1].sequenceNumber]))])
        let resent = try #require(carol.packets.first)
        #expect(resent.payloadType == 109 && resent.payload == [0xF8, 2] && resent.sequenceNumber == first[1].sequenceNumber)
        let bobResent = try #require(h.subscriberSink.packets.first)
        #expect(bobResent.payloadType == 110 && bobResent.payload == bobFirst[1].payload)
    }

    @Test func plainOpusFromAPublisherWithoutREDStaysPlainForEveryone() throws {
        let (h, carol, _) = try harness(publisherRED: false)
        h.publish(Self.packet(pt: 111, 1, ts: 0, payload: [0xF8, 1]))
        h.publish(Self.packet(pt: 111, 2, ts: 960, payload: [0xF8, 2]))
        #expect(h.subscriberSink.packets.map(\.payloadType) == [109, 109])
        #expect(h.subscriberSink.packets.map(\.payload) == [[0xF8, 1], [0xF8, 2]])
        #expect(carol.packets.map(\.payload) == [[0xF8, 1], [0xF8, 2]])
    }
}
