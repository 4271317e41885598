import RTCWire
import Testing
@testable import SFU

/// The SFU forwards H.264 (packetization-mode 1) without decoding: a subscription starts on an
/// access unit that begins with SPS or an IDR (single NAL, STAP-A or FU-A start), and a simulcast
/// subscriber switches layers on such a unit.
struct H264ForwardingTests {
    typealias H = SFUHarness

    /// Payloads by their first bytes: a delta slice, an FU-A IDR start, a STAP-A with SPS, an FU-A middle.
    static let delta: [UInt8] = [0x41, 0x9A, 1, 2, 3]
    static let idrFragmentStart: [UInt8] = [0x7C, 0x85, 9, 9, 9]
    static let stapWithSPS: [UInt8] = [0x78, 0x00, 0x03, 0x67, 0x42, 0xE0, 0x00, 0x02, 0x68, 0xCE]
    static let idrFragmentMiddle: [UInt8] = [0x7C, 0x05, 8, 8, 8]

    static func producer(encodings: [RTPEncodingParameters]) -> RTPParameters {
        RTPParameters(mid: "1", codecs: [.h264(payloadType: 102)], headerExtensions: H.publisherExtensions, encodings: encodings)
    }

    static func subscriber() -> RTPParameters {
        RTPParameters(mid: "s3", codecs: [.h264(payloadType: 127)], headerExtensions: H.subscriberExtensions,
                      encodings: [RTPEncodingParameters(ssrc: 0xAAAA)])
    }

    @Test func aSubscriptionStartsOnAnIDRAndTakesTheSubscribersPayloadType() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video,
                           parameters: Self.producer(encodings: [RTPEncodingParameters(ssrc: 0x2222)]), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                               preferredLayer: nil, paused: false, now: h.now)
        let packets: [(UInt16, UInt32, [UInt8])] = [
            (1, 0, Self.delta), (2, 0, Self.idrFragmentMiddle), // no key frame yet: dropped
            (3, 3000, Self.stapWithSPS), (4, 3000, Self.idrFragmentStart), (5, 3000, Self.idrFragmentMiddle),
            (6, 6000, Self.delta),
        ]
        for (seq, ts, payload) in packets {
            h.publish(PacketFactory.rtp(pt: 102, seq: seq, ts: ts, ssrc: 0x2222, payload: payload))
        }
        #expect(h.subscriberSink.packets.map(\.timestamp) == [3000, 3000, 3000, 6000])
        #expect(h.subscriberSink.packets.allSatisfy { $0.payloadType == 127 })
        #expect(h.subscriberSink.packets.map { Array($0.payload.prefix(2)) } == [[0x78, 0x00], [0x7C, 0x85], [0x7C, 0x05], [0x41, 0x9A]])
    }

    @Test func aSimulcastSubscriberSwitchesOnTheTargetLayersIDR() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video,
                           parameters: Self.producer(encodings: [RTPEncodingParameters(rid: "h", layer: "camera_big"),
                                                                 RTPEncodingParameters(rid: "l", layer: "camera_small")]),
                           muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                               preferredLayer: "camera_small", paused: false, now: h.now)
        func packet(rid: String, ssrc: UInt32, seq: UInt16, ts: UInt32, _ payload: [UInt8]) -> [UInt8] {
            PacketFactory.rtp(pt: 102, seq: seq, ts: ts, ssrc: ssrc, marker: true,
                              extensions: [(H.pubMid, Array("1".utf8)), (H.pubRid, Array(rid.utf8))], payload: payload)
        }
        // Small layer: a delta first (dropped), then an IDR start, then a delta.
        h.publish(packet(rid: "l", ssrc: 0x20, seq: 10, ts: 1000, Self.delta))
        h.publish(packet(rid: "h", ssrc: 0x10, seq: 50, ts: 9000, Self.stapWithSPS))
        h.publish(packet(rid: "l", ssrc: 0x20, seq: 11, ts: 4000, Self.idrFragmentStart))
        h.publish(packet(rid: "l", ssrc: 0x20, seq: 12, ts: 7000, Self.delta))
        h.publish(packet(rid: "h", ssrc: 0x10, seq: 51, ts: 12000, Self.delta))
        let forwarded = h.subscriberSink.packets
        #expect(forwarded.count == 2)
        #expect(forwarded.map { Array($0.payload.prefix(2)) } == [[0x7C, 0x85], [0x41, 0x9A]])
        #expect(forwarded.allSatisfy { $0.ssrc == 0xAAAA })
    }
}
