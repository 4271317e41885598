import RTCMedia
import RTCWire
import Testing
@testable import SFU

/// A scalable VP9 producer (one stream, 3 spatial layers, `L3T3_KEY`-shaped) through the SFU: each
/// subscriber gets the spatial layers up to its own, as one gap-free stream with a marker at the
/// end of each of its pictures; it switches up at a key picture (asked for with a PLI) and NACKs
/// are answered with the packet as it was first sent, marker included.
struct VP9ForwardingTests {
    typealias H = SFUHarness
    typealias S = VP9LayerSelectorTests

    static func producer() -> RTPParameters {
        var parameters = RTPParameters(mid: "1", codecs: [.vp9(payloadType: 98)], headerExtensions: H.publisherExtensions,
                                       encodings: [RTPEncodingParameters(ssrc: 0x9999)])
        parameters.spatialLayers = ["camera_big", "camera_medium", "camera_small"]
        return parameters
    }

    static func subscriber() -> RTPParameters {
        RTPParameters(mid: "s3", codecs: [.vp9(payloadType: 100)], headerExtensions: H.subscriberExtensions,
                      encodings: [RTPEncodingParameters(ssrc: 0xAAAA)])
    }

    /// Publishes `pictures`; picture 0's base layer carries the scalability structure (3 layers).
    static func publish(_ h: SFUHarness, _ pictures: Range<Int>, keys: Set<Int> = [0], firstSequence: UInt16 = 100) {
        var sequence = firstSequence &+ UInt16(pictures.lowerBound * 6)
        for packet in S.stream(pictures, keys: keys) {
            let structure = packet.descriptor.isKeyFrameStart ? VP9ScalabilityStructure(spatialLayers: 3) : nil
            let payload = packet.descriptor.bytes(structure: structure) + [0x80, UInt8(packet.spatial), 1, 2, 3]
            h.publish(PacketFactory.rtp(pt: 98, seq: sequence, ts: packet.timestamp, ssrc: 0x9999, marker: packet.marker, payload: payload))
            sequence &+= 1
        }
    }

    static func spatialIDs(_ packets: [RTPPacket]) -> [UInt8] {
        packets.map { (try? VP9PayloadDescriptor.parse($0.payload))?.descriptor.spatialLayer ?? 99 }
    }

    @Test func theSmallSubscriberGetsTheBaseLayerAsOneStreamWithMarkers() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        let info = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                                      preferredLayer: "camera_small", paused: false, now: h.now)
        #expect(info.layers == ["camera_big", "camera_medium", "camera_small"])
        Self.publish(h, 0 ..< 4)
        let sent = h.subscriberSink.packets
        #expect(Self.spatialIDs(sent) == Array(repeating: 0, count: 8))
        #expect(sent.map(\.marker) == [false, true, false, true, false, true, false, true])
        #expect(sent.allSatisfy { $0.ssrc == 0xAAAA && $0.payloadType == 100 })
        let sequences = sent.map(\.sequenceNumber)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(h.log.layerSwitches == [LayerSwitch(layer: "camera_small", previous: nil, cause: .requested)])

        // A NACK for a packet whose marker the SFU set: resent the same, marker included.
        h.subscriberSink.clear()
        h.advance(ms: 30)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [sent[3].sequenceNumber]))])
        let resent = h.subscriberSink.packets
        try #require(resent.count == 1)
        #expect(resent[0].sequenceNumber == sent[3].sequenceNumber && resent[0].marker && resent[0].payload == sent[3].payload)
    }

    @Test func goingUpAsksForAKeyPictureAndSwitchesThere() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                               preferredLayer: "camera_small", paused: false, now: h.now)
        Self.publish(h, 0 ..< 2)
        h.publisherSink.clear()
        h.advance(ms: 1000)
        try h.core.setPreferredLayer("bob/cam", layer: "camera_big", now: h.now)
        let plis = h.publisherSink.rtcpPackets.filter { if case .pictureLossIndication = $0 { return true } else { return false } }
        #expect(plis.count == 1)
        h.subscriberSink.clear()
        Self.publish(h, 2 ..< 4)                // inter pictures: still the base layer
        #expect(Set(Self.spatialIDs(h.subscriberSink.packets)) == [0])
        h.subscriberSink.clear()
        Self.publish(h, 4 ..< 5, keys: [4])     // the key picture: every layer
        #expect(Self.spatialIDs(h.subscriberSink.packets) == [0, 0, 1, 1, 2, 2])
        #expect(h.log.layerSwitches.map(\.layer) == ["camera_small", "camera_medium", "camera_big"])
    }

    @Test func withoutAPreferenceEveryLayerTheStreamCarriesIsForwarded() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                               preferredLayer: nil, paused: false, now: h.now)
        Self.publish(h, 0 ..< 2)
        #expect(Self.spatialIDs(h.subscriberSink.packets) == [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2])
        #expect(h.subscriberSink.packets.filter(\.marker).count == 2)
    }
}
