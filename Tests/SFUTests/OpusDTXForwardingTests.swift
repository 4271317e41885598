import RTCWire
import Testing
@testable import SFU

/// Opus DTX through the SFU (RFC 7587 §3.1.3, docs/network.md "DTX"): during silence the
/// publisher sends a packet every 400 ms, each the next sequence number with a timestamp 400 ms
/// on. Neither the publisher (its NACK generator) nor the subscriber is asked about the gap, and
/// the subscriber gets the same jumps with continuous numbers; a real gap is still NACKed.
struct OpusDTXForwardingTests {
    typealias H = SFUHarness

    static func nacks(_ sink: RecordingSink) -> [TransportLayerNack] {
        sink.rtcpPackets.compactMap { if case .nack(let n) = $0 { return n } else { return nil } }
    }

    @Test func aDTXGapSkipsTimeNotNumbersAndIsNotNACKed() throws {
        let h = try SFUHarness()
        var producer = H.audioProducer()
        producer.codecs[0].rtcpFeedback.append(.nack)
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: producer, muted: false)
        var subscriber = H.subscriberParameters(kind: .audio)
        subscriber.codecs[0].rtcpFeedback.append(.nack)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: subscriber, preferredLayer: nil,
                               paused: false, now: h.now)
        var seq: UInt16 = 100
        var ts: UInt32 = 0
        func send(after ms: Int64, samples: UInt32) {
            h.advance(ms: ms)
            ts &+= samples
            h.publish(PacketFactory.rtp(pt: 111, seq: seq, ts: ts, ssrc: 0x1111, extensions: [(H.pubMid, Array("0".utf8))],
                                        payload: [0xF8, UInt8(truncatingIfNeeded: seq)]))
            seq &+= 1
            h.tick()
        }
        send(after: 0, samples: 0)
        for _ in 0 ..< 10 { send(after: 20, samples: 960) }
        // Silence: 5 DTX updates 400 ms apart, then speech again.
        for _ in 0 ..< 5 { send(after: 400, samples: 19_200) }
        for _ in 0 ..< 10 { send(after: 20, samples: 960) }
        h.advance(ms: 200)
        h.tick()
        #expect(Self.nacks(h.publisherSink).isEmpty, "the SFU NACKed a DTX gap upstream")

        let out = h.subscriberSink.packets
        try #require(out.count == 26)
        #expect(out.map { $0.sequenceNumber &- out[0].sequenceNumber } == (0 ..< 26).map { UInt16($0) })
        let steps = zip(out, out.dropFirst()).map { $1.timestamp &- $0.timestamp }
        #expect(steps == Array(repeating: 960, count: 10) + Array(repeating: 19_200, count: 5) + Array(repeating: 960, count: 10))

        // A real gap after it is still asked for.
        seq &+= 2
        send(after: 60, samples: 2880)
        h.advance(ms: 20)
        h.tick()
        #expect(Self.nacks(h.publisherSink).map(\.lostSequenceNumbers) == [[seq &- 3, seq &- 2]])
    }
}
