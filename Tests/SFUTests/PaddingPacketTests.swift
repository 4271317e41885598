import RTCWire
import Testing
@testable import SFU

/// The padding-only packets a probe sends (RFC 3550 §5.1), as a receiver parses them.
struct PaddingPacketTests {
    @Test func aPaddingOnlyPacketHasNoPayloadAndCountsItsPadding() throws {
        var ids = HeaderExtensionIDs()
        ids.transportWideCC = 3
        ids.absSendTime = 2
        let mid = [UInt8]("1".utf8)
        let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 8)
        defer { slot.deallocate() }
        let length = try mid.withUnsafeBytes { midBytes in
            let extensions = OutgoingExtensions(ids: ids, mid: midBytes, audioLevel: nil, absSendTime: 0x123456, transportSequence: 0xBEEF)
            return try #require(RTPForwardWriter.writePadding(into: slot, ssrc: 0x1122_3344, sequenceNumber: 65535, timestamp: 90_000,
                                                              payloadType: 96, extensions: extensions, paddingLength: 255))
        }
        // 12 header + 12 extension block (0xBEDE, 3-byte abs-send-time, 2-byte transport-cc, padded) + 255.
        #expect(length == 12 + 12 + 255)
        let view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: slot[0 ..< length]))
        #expect(slot[0] == 0xB0)  // V=2, P=1, X=1, CC=0
        #expect(!view.marker && view.payloadType == 96)
        #expect(view.sequenceNumber == 65535 && view.timestamp == 90_000 && view.ssrc == 0x1122_3344)
        #expect(view.payload.isEmpty && view.paddingLength == 255)
        #expect(view.extensionValue(id: 3).map(Array.init) == [0xBE, 0xEF])
        #expect(slot[length - 1] == 255)
    }

    /// A probe's padding lost on the way leaves a gap the receiver NACKs; it is answered with
    /// padding of that number, or a receiver that hands on frames only in unbroken sequence order
    /// (aiortc's jitter buffer) would hold every later frame.
    @Test func aNackForAProbesPaddingIsAnsweredWithPaddingOfThatNumber() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: FeedbackTests.videoProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: SFUHarness.subscriberParameters(kind: .video),
                               preferredLayer: nil, paused: false, now: h.now)
        func frame(_ seq: UInt16, ts: UInt32, picture: UInt16) -> [UInt8] {
            PacketFactory.rtp(pt: 96, seq: seq, ts: ts, ssrc: 0x2222, marker: true,
                              payload: PacketFactory.vp8(pictureID: picture, keyFrame: picture == 1))
        }
        h.publish(frame(100, ts: 3000, picture: 1))
        h.tick()
        let consumer = try #require(h.subscriber.consumers.first)
        #expect(consumer.sendPadding(255, now: h.now) && consumer.sendPadding(255, now: h.now))
        h.advance(ms: 33)
        h.publish(frame(101, ts: 6000, picture: 2))
        h.tick()
        let sent = h.subscriberSink.packets
        try #require(sent.count == 4)
        let first = sent[0].sequenceNumber
        #expect(sent.map(\.sequenceNumber) == [first, first &+ 1, first &+ 2, first &+ 3])
        #expect(sent[1].payload.isEmpty && sent[1].paddingLength == 255 && sent[1].timestamp == sent[0].timestamp)

        h.subscriberSink.clear()
        h.advance(ms: 30)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [sent[1].sequenceNumber, sent[3].sequenceNumber]))])
        let resent = h.subscriberSink.packets
        try #require(resent.count == 2)
        // Padding again: its number and timestamp, one octet (the count alone), a fresh
        // transport-wide number.
        let padding = try #require(resent.first { $0.sequenceNumber == sent[1].sequenceNumber })
        #expect(padding.payload.isEmpty && padding.paddingLength == 1 && padding.timestamp == sent[1].timestamp && padding.ssrc == 0xAAAA)
        #expect(padding.extensionValue(id: SFUHarness.subTWCC) != sent[1].extensionValue(id: SFUHarness.subTWCC))
        // The media packet after it as before.
        #expect(resent.contains { $0.sequenceNumber == sent[3].sequenceNumber && $0.payload == sent[3].payload })
        #expect(consumer.counters.paddingResent == 1 && consumer.counters.retransmissionMisses == 0)

        // Not again within one RTT, as a media packet.
        h.subscriberSink.clear()
        h.advance(ms: 1)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [sent[1].sequenceNumber]))])
        #expect(h.subscriberSink.rtp.isEmpty)
    }
}
