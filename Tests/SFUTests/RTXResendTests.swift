import RTCWire
import Testing
@testable import SFU

/// Resends and probe padding toward a subscriber that negotiated RTX (RFC 4588): on the RTX
/// stream, with its own SSRC and numbers, the original number leading the payload.
struct RTXResendTests {
    static let rtxSSRC: UInt32 = 0xBBBB

    static func parameters(rtx: Bool) -> RTPParameters {
        var parameters = SFUHarness.subscriberParameters(kind: .video)
        if rtx {
            parameters.codecs.append(.rtx(payloadType: 99, associatedPayloadType: 98))
            parameters.encodings[0].rtxSSRC = rtxSSRC
        }
        return parameters
    }

    static func frame(_ seq: UInt16, ts: UInt32, picture: UInt16, marker: Bool = true, padding: UInt8 = 0) -> [UInt8] {
        PacketFactory.rtp(pt: 96, seq: seq, ts: ts, ssrc: 0x2222, marker: marker,
                          payload: PacketFactory.vp8(pictureID: picture, keyFrame: picture == 1), padding: padding)
    }

    func harness(rtx: Bool) throws -> (SFUHarness, Consumer) {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: FeedbackTests.videoProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.parameters(rtx: rtx),
                               preferredLayer: nil, paused: false, now: h.now)
        return (h, try #require(h.subscriber.consumers.first))
    }

    /// The subscriber NACKs `numbers` `ms` later; what the server sent in answer.
    func nack(_ h: SFUHarness, _ numbers: [UInt16], after ms: Int64) -> [RTPPacket] {
        h.subscriberSink.clear()
        h.advance(ms: ms)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: numbers))])
        return h.subscriberSink.packets
    }

    @Test func aNackIsAnsweredOnTheRTXStreamWithTheOriginalNumberFirst() throws {
        let (h, consumer) = try harness(rtx: true)
        #expect(consumer.probesOnRTX)
        h.publish(Self.frame(100, ts: 3000, picture: 1, padding: 4))
        h.advance(ms: 33)
        h.publish(Self.frame(101, ts: 6000, picture: 2))
        h.tick()
        let sent = h.subscriberSink.packets
        try #require(sent.count == 2)
        #expect(sent.allSatisfy { $0.ssrc == 0xAAAA && $0.payloadType == 98 })

        let resent = nack(h, [sent[0].sequenceNumber, sent[1].sequenceNumber], after: 30)
        try #require(resent.count == 2)
        for (rtx, original) in zip(resent, sent) {
            #expect(rtx.ssrc == Self.rtxSSRC && rtx.payloadType == 99)
            #expect(rtx.timestamp == original.timestamp && rtx.marker == original.marker)
            // OSN, then the payload as first sent; the original's padding is not carried.
            #expect(Array(rtx.payload.prefix(2)) == [UInt8(original.sequenceNumber >> 8), UInt8(original.sequenceNumber & 0xFF)])
            #expect(Array(rtx.payload.dropFirst(2)) == original.payload && rtx.paddingLength == 0)
            #expect(rtx.extensionValue(id: SFUHarness.subMid) == original.extensionValue(id: SFUHarness.subMid))
            let twcc = try #require(rtx.extensionValue(id: SFUHarness.subTWCC))
            #expect(twcc != original.extensionValue(id: SFUHarness.subTWCC))
        }
        #expect(sent[0].paddingLength == 4)
        // The RTX stream's own numbers, one after the other.
        #expect(resent[1].sequenceNumber == resent[0].sequenceNumber &+ 1)
        #expect(consumer.counters.rtxResent == 2 && consumer.counters.retransmissions == 2)

        // Unwrapped, it is the packet first sent but for the send-time extensions.
        let raw = h.subscriberSink.rtp[1]
        var out = [UInt8](repeating: 0, count: 1500)
        let length = try #require(raw.withUnsafeBytes { rtx in
            out.withUnsafeMutableBytes { RTXPacket.unwrap(rtx, into: $0, ssrc: 0xAAAA, payloadType: 98) }
        })
        let unwrapped = try RTPPacket(parsing: Array(out[0 ..< length]))
        #expect(unwrapped.sequenceNumber == sent[1].sequenceNumber && unwrapped.ssrc == 0xAAAA && unwrapped.payloadType == 98)
        #expect(unwrapped.payload == sent[1].payload && unwrapped.marker == sent[1].marker)

        // Asked again after the RTT: the next RTX number.
        let again = try #require(nack(h, [sent[1].sequenceNumber], after: 100).first)
        #expect(again.ssrc == Self.rtxSSRC && again.sequenceNumber == resent[1].sequenceNumber &+ 1)
    }

    /// Probe padding on the RTX stream leaves the media sequence alone: no number taken, none to
    /// NACK, and it may go inside a frame.
    @Test func probePaddingGoesOnTheRTXStreamAndLeavesTheMediaSequenceAlone() throws {
        let (h, consumer) = try harness(rtx: true)
        h.publish(Self.frame(100, ts: 3000, picture: 1, marker: false))
        h.tick()
        #expect(consumer.sendPadding(255, now: h.now) && consumer.sendPadding(255, now: h.now))
        h.publish(Self.frame(101, ts: 3000, picture: 1))
        h.tick()
        let sent = h.subscriberSink.packets
        try #require(sent.count == 4)
        let media = sent.filter { $0.ssrc == 0xAAAA }
        let padding = sent.filter { $0.ssrc == Self.rtxSSRC }
        #expect(media.count == 2 && media[1].sequenceNumber == media[0].sequenceNumber &+ 1)
        #expect(padding.count == 2 && padding.allSatisfy { $0.payloadType == 99 && $0.payload.isEmpty && $0.paddingLength == 255 })
        #expect(padding[1].sequenceNumber == padding[0].sequenceNumber &+ 1 && padding[0].timestamp == media[0].timestamp)
        #expect(padding.allSatisfy { $0.extensionValue(id: SFUHarness.subTWCC) != nil })
        #expect(consumer.counters.rtxPadding == 2 && consumer.counters.packetsSent == 2)

        // A resend after the padding takes the RTX number after it.
        let resent = try #require(nack(h, [media[0].sequenceNumber], after: 30).first)
        #expect(resent.ssrc == Self.rtxSSRC && resent.sequenceNumber == padding[1].sequenceNumber &+ 1)
    }

    /// Without RTX a resend is the packet again, on the media SSRC with its number (the
    /// subscribers that did not negotiate RTX: the Swift SDK, aiortc).
    @Test func withoutRTXAResendIsACopyOnTheMediaSSRC() throws {
        let (h, consumer) = try harness(rtx: false)
        #expect(!consumer.probesOnRTX)
        h.publish(Self.frame(100, ts: 3000, picture: 1))
        h.tick()
        let sent = try #require(h.subscriberSink.packets.first)
        let resent = try #require(nack(h, [sent.sequenceNumber], after: 30).first)
        #expect(resent.ssrc == 0xAAAA && resent.sequenceNumber == sent.sequenceNumber && resent.payload == sent.payload)
        #expect(consumer.counters.rtxResent == 0 && consumer.counters.retransmissions == 1)
    }
}
