import RTCWire
import Testing
@testable import SFU

/// A scalable AV1 producer (Chromium's `L3T3_KEY` Dependency Descriptors, `ChromiumL3T3Key`)
/// through the SFU: each subscriber gets one spatial layer's frames as one gap-free stream, with
/// the marker at the end of its frame of each temporal unit and a descriptor that says which decode
/// targets it gets (av1-rtp-spec §A.4); going up asks for a key frame and happens there; a NACKed
/// packet is resent as first sent, descriptor included.
struct AV1ForwardingTests {
    typealias H = SFUHarness
    typealias F = ChromiumL3T3Key
    static let pubDD: UInt8 = 13, subDD: UInt8 = 6

    static func av1(_ payloadType: UInt8) -> RTPCodecParameters {
        RTPCodecParameters(name: "AV1", payloadType: payloadType, clockRate: 90_000, rtcpFeedback: [.nack, .pli, .fir, .remb, .transportCC])
    }

    static func producer() -> RTPParameters {
        var parameters = RTPParameters(mid: "1", codecs: [av1(45)],
                                       headerExtensions: H.publisherExtensions + [.init(uri: RTPHeaderExtensionURI.dependencyDescriptor, id: pubDD)],
                                       encodings: [RTPEncodingParameters(ssrc: 0x1A01)])
        parameters.spatialLayers = ["camera_big", "camera_medium", "camera_small"]
        return parameters
    }

    static func subscriber() -> RTPParameters {
        RTPParameters(mid: "s3", codecs: [av1(100)],
                      headerExtensions: H.subscriberExtensions + [.init(uri: RTPHeaderExtensionURI.dependencyDescriptor, id: subDD)],
                      encodings: [RTPEncodingParameters(ssrc: 0xAAAA)])
    }

    /// Publishes `packets` with consecutive sequence numbers from `first` (the padding Chromium
    /// sent between them left out), each with its descriptor in a two-byte extension block.
    static func publish(_ h: SFUHarness, _ packets: ArraySlice<F.Packet>, first: UInt16 = 500, timestampBase: UInt32 = 90_000) {
        for (i, p) in packets.enumerated() {
            let packet = RTPPacket(marker: p.marker, payloadType: 45, sequenceNumber: first &+ UInt16(i), timestamp: timestampBase &+ p.ts,
                                   ssrc: 0x1A01, extensionProfile: .twoByte,
                                   extensions: [RTPHeaderExtensionElement(id: pubDD, value: p.descriptor)],
                                   payload: [p.header, 0x0A, 0x0B, 0x0C])
            h.publish(packet.serialize())
        }
    }

    /// The descriptors a subscriber got, read with its own reader (as its browser would).
    static func received(_ packets: [RTPPacket], reader: inout DependencyDescriptorReader) throws -> [DependencyDescriptor] {
        try packets.map { packet in
            let value = try #require(packet.extensions.first { $0.id == subDD }?.value)
            return try reader.read(value)
        }
    }

    @Test func theSmallSubscriberGetsLayerZeroAsOneStreamThatSaysSo() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        let info = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                                      preferredLayer: "camera_small", paused: false, now: h.now)
        #expect(info.layers == ["camera_big", "camera_medium", "camera_small"])
        Self.publish(h, F.threeLayers[...])
        let sent = h.subscriberSink.packets
        var reader = DependencyDescriptorReader()
        let descriptors = try Self.received(sent, reader: &reader)
        #expect(descriptors.allSatisfy { $0.spatialID == 0 && $0.activeDecodeTargets == 0b111 })
        #expect(descriptors.first?.carriesStructure == true && reader.structure?.decodeTargetCount == 9)
        #expect(sent.allSatisfy { $0.marker && $0.ssrc == 0xAAAA && $0.payloadType == 100 })
        let sequences = sent.map(\.sequenceNumber)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(h.log.layerSwitches == [LayerSwitch(layer: "camera_small", previous: nil, cause: .requested)])

        // A NACK: resent the same, marker and rewritten descriptor included.
        h.subscriberSink.clear()
        h.advance(ms: 30)
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [sent[0].sequenceNumber, sent[3].sequenceNumber]))])
        let resent = h.subscriberSink.packets
        try #require(resent.count == 2)
        #expect(resent.map(\.sequenceNumber) == [sent[0].sequenceNumber, sent[3].sequenceNumber])
        let descriptor = { (p: RTPPacket) in p.extensions.first { $0.id == Self.subDD }?.value }
        #expect(resent.map(descriptor) == [descriptor(sent[0]), descriptor(sent[3])])
        #expect(resent.allSatisfy { $0.marker })
    }

    @Test func goingUpAsksForAKeyFrameAndSwitchesThere() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                               preferredLayer: "camera_small", paused: false, now: h.now)
        Self.publish(h, F.threeLayers[..<20])
        h.publisherSink.clear()
        h.advance(ms: 1000)
        try h.core.setPreferredLayer("bob/cam", layer: "camera_big", now: h.now)
        let plis = h.publisherSink.rtcpPackets.filter { if case .pictureLossIndication = $0 { return true } else { return false } }
        #expect(plis.count == 1)
        h.subscriberSink.clear()
        Self.publish(h, F.threeLayers[20...], first: 520)        // S2's chain is broken: still S0
        var reader = DependencyDescriptorReader()
        _ = try reader.read(F.threeLayers[0].descriptor)
        #expect(try Self.received(h.subscriberSink.packets, reader: &reader).allSatisfy { $0.spatialID == 0 })
        h.subscriberSink.clear()
        Self.publish(h, F.threeLayers[..<8], first: 600, timestampBase: 900_000)   // the next key frame: every layer, then S2
        let key = try Self.received(h.subscriberSink.packets, reader: &reader)
        #expect(key.map(\.spatialID) == [0, 1, 2, 2, 2, 2])
        #expect(key.allSatisfy { $0.activeDecodeTargets == 0b1_1100_0000 })
        #expect(h.log.layerSwitches.map(\.layer) == ["camera_small", "camera_big"])
        let sequences = h.subscriberSink.packets.map(\.sequenceNumber)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    @Test func withoutAPreferenceTheTopLayerIsForwardedAndTheDescriptorsSayOnlyItsDecodeTargets() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: Self.subscriber(),
                               preferredLayer: nil, paused: false, now: h.now)
        Self.publish(h, F.threeLayers[...])
        var reader = DependencyDescriptorReader()
        let descriptors = try Self.received(h.subscriberSink.packets, reader: &reader)
        #expect(descriptors.prefix(5).map(\.spatialID) == [0, 1, 2, 2, 2] && descriptors.dropFirst(5).allSatisfy { $0.spatialID == 2 })
        #expect(reader.activeDecodeTargets == 0b1_1100_0000)
        #expect(h.subscriberSink.packets.filter(\.marker).count == Set(F.threeLayers.map(\.ts)).count)
    }
}
