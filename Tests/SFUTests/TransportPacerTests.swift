import RTCWire
import Testing
@testable import SFU

/// The server's pacer (docs/network.md, "Pacing"): a subscriber transport's video leaves at its
/// bandwidth estimate, audio never waits behind it, and what waits goes out in order with
/// transport-wide numbers given in sending order.
struct TransportPacerTests {
    typealias H = SFUHarness

    static let videoSSRC: UInt32 = 0x2222

    /// A publisher with Opus and single-stream VP8, a subscriber consuming both.
    func harness() throws -> SFUHarness {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        let video = RTPParameters(mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: H.publisherExtensions,
                                  encodings: [RTPEncodingParameters(ssrc: Self.videoSSRC)])
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: video, muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: H.subscriberParameters(kind: .audio, mid: "a", ssrc: 0xAAAA),
                               preferredLayer: nil, paused: false, now: h.now)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video, mid: "v", ssrc: 0xBBBB),
                               preferredLayer: nil, paused: false, now: h.now)
        return h
    }

    static func video(_ seq: UInt16, keyFrame: Bool = false, marker: Bool = false) -> [UInt8] {
        PacketFactory.rtp(pt: 96, seq: seq, ts: 90_000, ssrc: videoSSRC, marker: marker,
                          extensions: [(H.pubMid, Array("1".utf8))],
                          payload: PacketFactory.vp8(pictureID: 1, start: seq == 100, keyFrame: keyFrame, size: 1000))
    }

    static func audio(_ seq: UInt16) -> [UInt8] {
        PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: 0x1111,
                          extensions: [(H.pubMid, Array("0".utf8))], payload: [0xFC, 1, 2, 3])
    }

    static func transportSequence(_ packet: RTPPacket) -> UInt16 {
        let value = packet.extensionValue(id: H.subTWCC)!
        return UInt16(value[0]) << 8 | UInt16(value[1])
    }

    @Test func aKeyFrameBurstLeavesAtTheEstimateWithAudioAheadOfIt() throws {
        let h = try harness()
        h.subscriber.pacer.rate = 400_000  // 50 000 bytes/s: 500 bytes per 10 ms
        // A 30-packet key frame (30 kB) at once, then an audio packet every 20 ms.
        for index in 0 ..< 30 { h.publish(Self.video(100 + UInt16(index), keyFrame: index == 0, marker: index == 29)) }
        let sentAtOnce = h.subscriberSink.packets.count
        #expect(sentAtOnce <= 1, "the bucket starts empty: \(sentAtOnce) left at once")
        #expect(h.subscriber.pacer.count == 30 - sentAtOnce)
        var audioSent: [Int64] = []
        for step in 0 ..< 100 {
            h.advance(ms: 10)
            if step % 2 == 0 {
                let before = h.subscriberSink.packets.filter { $0.ssrc == 0xAAAA }.count
                h.publish(Self.audio(UInt16(step / 2)))
                // Audio leaves the moment it arrives, whatever waits.
                #expect(h.subscriberSink.packets.filter { $0.ssrc == 0xAAAA }.count == before + 1)
                audioSent.append(h.now)
            }
            h.core.drainPacers(now: h.now)
        }
        let out = h.subscriberSink.packets
        let video = out.filter { $0.ssrc == 0xBBBB }
        // Every video packet left, in order, none lost.
        #expect(video.count == 30)
        #expect(zip(video, video.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        #expect(out.filter { $0.ssrc == 0xAAAA }.count == 50)
        // Transport-wide numbers follow the order packets left in, audio and video mixed.
        let numbers = out.map(Self.transportSequence)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(numbers)")
        #expect(h.subscriber.pacer.isEmpty && h.subscriber.counters.pacerSendFailures == 0)
        // 30 kB at 50 kB/s less what audio took: it took most of 600 ms, not one burst.
        let lastVideoIndex = try #require(out.lastIndex { $0.ssrc == 0xBBBB })
        let audioBeforeLastVideo = out[..<lastVideoIndex].filter { $0.ssrc == 0xAAAA }.count
        print("pacer: 30 kB key frame at 400 kbit/s: \(audioBeforeLastVideo) audio packets (20 ms apart) left before its last packet; longest wait \(h.subscriber.counters.pacerDelayMax / 1000) ms")
        #expect(audioBeforeLastVideo >= 20)
    }

    @Test func withoutAnEstimateNothingWaits() throws {
        let h = try harness()
        for index in 0 ..< 30 { h.publish(Self.video(100 + UInt16(index), keyFrame: index == 0, marker: index == 29)) }
        #expect(h.subscriberSink.packets.count == 30)
        #expect(h.subscriber.pacer.isEmpty && h.subscriber.counters.pacedPackets == 0)
    }

    @Test func aWaitingPacketGetsItsSendTimeWhenItLeaves() throws {
        let h = try harness()
        h.subscriber.pacer.rate = 400_000
        for index in 0 ..< 10 { h.publish(Self.video(100 + UInt16(index), keyFrame: index == 0, marker: index == 9)) }
        let start = h.now
        for _ in 0 ..< 30 {
            h.advance(ms: 10)
            h.core.drainPacers(now: h.now)
        }
        let video = h.subscriberSink.packets.filter { $0.ssrc == 0xBBBB }
        #expect(video.count == 10)
        let first = try AbsSendTimeExtension(parsing: video[0].extensionValue(id: H.subAbsSendTime)!)
        let last = try AbsSendTimeExtension(parsing: video[9].extensionValue(id: H.subAbsSendTime)!)
        // ~10 kB at 50 kB/s: the last left about 180 ms after the first (abs-send-time: 2^18 per s).
        let spread = Int64(last.rawValue &- first.rawValue) * 1_000_000 / 262_144
        #expect(spread >= 100_000, "spread \(spread) µs")
        #expect(h.now - start >= spread)
    }

    @Test func aClosedTransportGivesItsSlotsBack() throws {
        let h = try harness()
        h.subscriber.pacer.rate = 100_000
        for index in 0 ..< 10 { h.publish(Self.video(100 + UInt16(index), keyFrame: index == 0)) }
        #expect(h.core.pacedPackets.inUse > 0)
        h.core.closeTransport("bob/sub")
        #expect(h.core.pacedPackets.inUse == 0)
    }
}
