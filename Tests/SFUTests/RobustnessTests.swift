import RTCWire
import Testing
@testable import SFU
import TestRandom

/// Whatever a peer sends (random bytes, truncated or mutated real packets), the SFU neither
/// crashes nor forwards what it cannot parse; the bad input is only counted.
struct RobustnessTests {
    typealias H = SFUHarness

    func harness() throws -> SFUHarness {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic",
                               parameters: H.subscriberParameters(kind: .audio), preferredLayer: nil, paused: false, now: h.now)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam",
                               parameters: H.subscriberParameters(kind: .video, mid: "v", ssrc: 0xBBBB),
                               preferredLayer: nil, paused: false, now: h.now)
        return h
    }

    static func validPackets() -> [[UInt8]] {
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1)
        return [SimpleForwardingTests.opus(1, ts: 0)] + big.frame(key: true, packets: 2) + [
            RTCPCompound.serialize([
                .receiverReport(ReceiverReport(ssrc: 1, reports: [ReceptionReport(ssrc: 0xAAAA, fractionLost: 3)])),
                .nack(TransportLayerNack(senderSSRC: 1, mediaSSRC: 0xAAAA, lost: [1, 2, 3])),
                .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0xBBBB)),
                .remb(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [0xAAAA])),
            ]),
        ]
    }

    @Test(arguments: [UInt64(1), 2, 3]) func randomBytesAreCountedAndDropped(seed: UInt64) throws {
        let h = try harness()
        var random = SeededRandom(seed: seed)
        for _ in 0 ..< 5000 {
            let length = Int(random.next() % 300)
            var bytes = (0 ..< length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = 0x80 | (bytes[0] & 0x3F) }  // often version 2
            bytes.withUnsafeBytes {
                h.publisher.receiveRTP($0, now: h.now)
                h.subscriber.receiveRTCP($0, now: h.now)
                h.publisher.receiveRTCP($0, now: h.now)
            }
            h.advance(ms: 1)
            if random.next() % 20 == 0 { h.tick() }
        }
        #expect(h.publisher.counters.malformed > 0)
    }

    @Test(arguments: [UInt64(1), 2, 3]) func truncatedAndMutatedRealPacketsNeverCrash(seed: UInt64) throws {
        let h = try harness()
        var random = SeededRandom(seed: seed)
        for original in Self.validPackets() {
            for cut in 0 ..< original.count {
                let truncated = Array(original[..<cut])
                truncated.withUnsafeBytes {
                    h.publisher.receiveRTP($0, now: h.now)
                    h.subscriber.receiveRTCP($0, now: h.now)
                }
            }
            for _ in 0 ..< 2000 {
                var mutated = original
                for _ in 0 ..< 1 + Int(random.next() % 4) {
                    mutated[Int(random.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                mutated.withUnsafeBytes {
                    h.publisher.receiveRTP($0, now: h.now)
                    h.subscriber.receiveRTCP($0, now: h.now)
                    h.publisher.receiveRTCP($0, now: h.now)
                }
                h.advance(ms: 1)
                if random.next() % 50 == 0 { h.tick() }
            }
        }
        // Everything forwarded is still a well-formed packet on the consumer's SSRC.
        for packet in h.subscriberSink.packets { #expect([0xAAAA, 0xBBBB].contains(packet.ssrc)) }
    }
}
