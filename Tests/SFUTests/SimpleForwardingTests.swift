import RTCWire
import Testing
@testable import SFU

/// A single-stream audio producer forwarded to one subscriber: the header rewrite, the header
/// extension block rebuilt with the subscriber's ids, gap-free numbering, pause and mute.
struct SimpleForwardingTests {
    typealias H = SFUHarness

    static func opus(_ seq: UInt16, ts: UInt32, level: UInt8 = 30, twcc: UInt16 = 0, payload: [UInt8] = [0xFC, 1, 2, 3],
                     padding: UInt8 = 0) -> [UInt8] {
        PacketFactory.rtp(pt: 111, seq: seq, ts: ts, ssrc: 0x1111,
                          extensions: [(H.pubAudioLevel, [0x80 | level]), (H.pubMid, Array("0".utf8)),
                                       (H.pubTWCC, PacketFactory.be16(twcc)), (H.pubAbsSendTime, [1, 2, 3])],
                          payload: payload, padding: padding)
    }

    func harnessWithAudioConsumer() throws -> (SFUHarness, ConsumerInfo) {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        let info = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic",
                                      parameters: H.subscriberParameters(kind: .audio), preferredLayer: nil,
                                      paused: false, now: h.now)
        return (h, info)
    }

    @Test func headerAndExtensionsAreRewrittenForTheSubscriber() throws {
        let (h, info) = try harnessWithAudioConsumer()
        #expect(info == ConsumerInfo(ssrc: 0xAAAA, payloadType: 109, layers: []))
        h.publish(Self.opus(5000, ts: 960_000, level: 25, twcc: 7))
        h.advance(ms: 20)
        h.publish(Self.opus(5001, ts: 960_960, level: 26, twcc: 8))
        let out = h.subscriberSink.packets
        try #require(out.count == 2)
        #expect(out.map(\.ssrc) == [0xAAAA, 0xAAAA])
        #expect(out.map(\.payloadType) == [109, 109])
        #expect(out[1].sequenceNumber == out[0].sequenceNumber &+ 1)
        #expect(out[1].timestamp &- out[0].timestamp == 960)
        #expect(out[0].payload == [0xFC, 1, 2, 3])
        // Only the subscriber's ids: mid with ITS mid value, the publisher's audio level byte,
        // a fresh abs-send-time and the subscriber transport's own transport-wide numbers.
        #expect(out[0].extensions.map(\.id) == [H.subMid, H.subAudioLevel, H.subAbsSendTime, H.subTWCC])
        #expect(out[0].extensionValue(id: H.subMid) == Array("s3".utf8))
        #expect(out[0].extensionValue(id: H.subAudioLevel) == [0x80 | 25])
        #expect(out[1].extensionValue(id: H.subAudioLevel) == [0x80 | 26])
        let twcc = out.map { UInt16($0.extensionValue(id: H.subTWCC)![0]) << 8 | UInt16($0.extensionValue(id: H.subTWCC)![1]) }
        #expect(twcc[1] == twcc[0] &+ 1)
        let abs0 = try AbsSendTimeExtension(parsing: out[0].extensionValue(id: H.subAbsSendTime)!)
        let abs1 = try AbsSendTimeExtension(parsing: out[1].extensionValue(id: H.subAbsSendTime)!)
        #expect(abs1.rawValue &- abs0.rawValue == 20 * 262_144 / 1000)
    }

    @Test func absCaptureTimeReachesTheSubscriberUnchangedUnderItsOwnID() throws {
        let h = try SFUHarness()
        let capture = RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.absCaptureTime, id: 6)
        var producer = H.audioProducer()
        producer.headerExtensions.append(capture)
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: producer, muted: false)
        var subscriber = H.subscriberParameters(kind: .audio)
        subscriber.headerExtensions.append(RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.absCaptureTime, id: 12))
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: subscriber,
                               preferredLayer: nil, paused: false, now: h.now)
        let ntp: [UInt8] = [0xE9, 0x1A, 0x2B, 0x3C, 0x80, 0x00, 0x00, 0x01]
        h.publish(PacketFactory.rtp(pt: 111, seq: 1, ts: 0, ssrc: 0x1111,
                                    extensions: [(H.pubMid, Array("0".utf8)), (6, ntp)], payload: [0xFC]))
        // A malformed value (not 8 or 16 bytes) is not forwarded.
        h.publish(PacketFactory.rtp(pt: 111, seq: 2, ts: 960, ssrc: 0x1111,
                                    extensions: [(H.pubMid, Array("0".utf8)), (6, [1, 2, 3])], payload: [0xFC]))
        let out = h.subscriberSink.packets
        try #require(out.count == 2)
        #expect(out[0].extensionValue(id: 12) == ntp)
        #expect(out[1].extensionValue(id: 12) == nil)
    }

    @Test func forwardedBytesAreExactlyTheRewrittenPacket() throws {
        let (h, _) = try harnessWithAudioConsumer()
        h.publish(Self.opus(10, ts: 1000, level: 40, twcc: 1, payload: [9, 8, 7], padding: 4))
        let bytes = try #require(h.subscriberSink.rtp.first)
        let seq = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let abs = Array(bytes[22 ..< 25]), twcc = Array(bytes[26 ..< 28])
        let expected: [UInt8] = [
            0xB0, 109,                            // V=2, P=1, X=1, CC=0; M=0, PT=109
            UInt8(seq >> 8), UInt8(seq & 0xFF),   // rewritten sequence number
            0x00, 0x00, 0x03, 0xE8,               // timestamp 1000 (offset 0)
            0x00, 0x00, 0xAA, 0xAA,               // SSRC 0xAAAA
            0xBE, 0xDE, 0x00, 0x03,               // one-byte extensions, 3 words
            0x11, 0x73, 0x33,                     // mid (id 1, len 2) = "s3"
            0x90, 0xA8,                           // audio level (id 9, len 1): V=1, 40 dBov
            0x22] + abs + [                       // abs-send-time (id 2, len 3)
            0x51] + twcc + [                      // transport-wide seq (id 5, len 2)
            0x09, 0x08, 0x07,                     // payload
            0x00, 0x00, 0x00, 0x04,               // RTP padding, count 4
        ]
        #expect(bytes == expected)
    }

    @Test func paddingOnlyPacketsAreDroppedWithoutLeavingAGap() throws {
        let (h, _) = try harnessWithAudioConsumer()
        h.publish(Self.opus(100, ts: 0))
        h.publish(Self.opus(101, ts: 960, payload: [], padding: 200))
        h.publish(Self.opus(102, ts: 1920))
        let seqs = h.subscriberSink.packets.map(\.sequenceNumber)
        #expect(seqs.count == 2)
        #expect(seqs[1] == seqs[0] &+ 1)
    }

    @Test func mutedProducersAndPausedConsumersForwardNothingAndResumeWithoutAGap() throws {
        let (h, _) = try harnessWithAudioConsumer()
        h.publish(Self.opus(1, ts: 0))
        try h.core.setProducerMuted("mic", muted: true, now: h.now)
        h.publish(Self.opus(2, ts: 960))
        try h.core.setProducerMuted("mic", muted: false, now: h.now)
        h.publish(Self.opus(3, ts: 1920))
        try h.core.setConsumerPaused("bob/mic", paused: true, now: h.now)
        h.publish(Self.opus(4, ts: 2880))
        h.publish(Self.opus(5, ts: 3840))
        try h.core.setConsumerPaused("bob/mic", paused: false, now: h.now)
        h.publish(Self.opus(6, ts: 4800))
        let out = h.subscriberSink.packets
        #expect(out.map(\.timestamp) == [0, 1920, 4800])
        #expect(out.map { $0.sequenceNumber &- out[0].sequenceNumber } == [0, 1, 2])
    }

    @Test func producerCloseEndsItsConsumers() throws {
        let (h, _) = try harnessWithAudioConsumer()
        h.core.closeProducer("mic")
        guard case .consumerClosed(let id, let reason) = h.log.events.last else {
            Issue.record("no consumerClosed event: \(h.log.events)")
            return
        }
        #expect(id == "bob/mic" && reason == .producerClosed)
        h.publish(Self.opus(1, ts: 0))
        #expect(h.subscriberSink.rtp.isEmpty)
        #expect(h.core.consumers.isEmpty)
    }

    @Test func packetsAreFoundByMidWhenTheSSRCIsNotSignaled() throws {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(ssrc: nil), muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic",
                               parameters: H.subscriberParameters(kind: .audio), preferredLayer: nil, paused: false, now: h.now)
        // Another SSRC with a foreign mid is not ours.
        h.publish(PacketFactory.rtp(pt: 111, seq: 1, ts: 0, ssrc: 0x9999, extensions: [(H.pubMid, Array("7".utf8))], payload: [1]))
        h.publish(Self.opus(1, ts: 0))
        h.publish(PacketFactory.rtp(pt: 111, seq: 2, ts: 960, ssrc: 0x1111, payload: [2]))
        #expect(h.subscriberSink.packets.map(\.payload) == [[0xFC, 1, 2, 3], [2]])
        #expect(h.publisher.counters.unknownSSRC == 1)
    }
}
