import RTCWire
import Testing
@testable import SFU

/// A publisher whose stream comes back under a new SSRC: the web SDK's new peer connection after
/// an address change (docs/network.md, "Addresses that change") sends the same m-section (same
/// mid, same rids) from a new encoder, with its own SSRC, sequence numbers and timestamps. The
/// producer takes it by mid (or rid); each subscriber sees one stream going on, without a jump.
struct RestartedSourceTests {
    typealias H = SFUHarness

    private func audio(seq: UInt16, ts: UInt32, ssrc: UInt32, mid: String? = "0") -> [UInt8] {
        PacketFactory.rtp(pt: 111, seq: seq, ts: ts, ssrc: ssrc,
                          extensions: mid.map { [(H.pubMid, Array($0.utf8))] } ?? [], payload: [0xF8, 0xFF, 0xFE])
    }

    @Test func anAudioStreamUnderANewSSRCWithItsMidGoesOnAfterWhatWasSent() throws {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: H.subscriberParameters(kind: .audio),
                               preferredLayer: nil, paused: false, now: h.now)
        for i in 0..<5 {
            h.publish(audio(seq: 100 + UInt16(i), ts: 1000 + UInt32(i) * 960, ssrc: 0x1111))
            h.advance(ms: 20)
        }
        // Half a second later the new connection's encoder: another SSRC, numbers and clock.
        h.advance(ms: 480)
        // Without the mid nothing says which m-section it belongs to: not taken.
        h.publish(audio(seq: 39_000, ts: 6_999_040, ssrc: 0x5555, mid: nil))
        #expect(h.subscriberSink.rtp.count == 5)
        for i in 0..<3 {
            h.publish(audio(seq: 40_000 + UInt16(i), ts: 7_000_000 + UInt32(i) * 960, ssrc: 0x5555))
            h.advance(ms: 20)
        }
        let out = h.subscriberSink.packets
        #expect(out.count == 8)
        #expect(Set(out.map(\.ssrc)) == [0xAAAA])
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        // The first new packet comes 500 ms (24 000 ticks at 48 kHz) after the last one sent.
        #expect(out[5].timestamp == out[4].timestamp &+ 24_000)
        #expect(out[7].timestamp == out[5].timestamp &+ 2 * 960)
    }

    @Test func aSimulcastLayerUnderANewSSRCIsTakenAgainFromItsKeyFrame() throws {
        let h = try SimulcastConsumerTests().harness(preferred: "camera_big")
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 300, ts: 100_000, picture: 1000)
        for p in big.frame(key: true) { h.publish(p) }
        for _ in 0..<3 {
            h.advance(ms: 33)
            for p in big.frame() { h.publish(p) }
        }
        #expect(h.subscriberSink.rtp.count == 4)
        let last = h.subscriberSink.packets.last!

        // The new connection's big layer: frames before its key frame cannot be decoded (dropped),
        // its key frame starts it again, numbered and timed after what was sent.
        var renewed = LayerSource(rid: "h", ssrc: 0x30, seq: 12_000, ts: 9_000_000, picture: 7)
        h.advance(ms: 100)
        for p in renewed.frame() { h.publish(p) }
        #expect(h.subscriberSink.rtp.count == 4)
        for p in renewed.frame(key: true, packets: 2) { h.publish(p) }
        h.advance(ms: 33)
        for p in renewed.frame() { h.publish(p) }
        let out = h.subscriberSink.packets
        #expect(out.count == 7)
        #expect(Set(out.map(\.ssrc)) == [0xAAAA])
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        // 100 ms at 90 kHz after the last timestamp sent, then the encoder's own 33 ms steps.
        #expect(out[4].timestamp == last.timestamp &+ 9000)
        #expect(out[6].timestamp == out[4].timestamp &+ 2970)
        #expect(PacketFactory.pictureID(out[4].payload) == (PacketFactory.pictureID(last.payload) + 1) & 0x7FFF)
    }
}
