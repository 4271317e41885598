import RTCMedia
import RTCWire
import Testing
@testable import SFU

/// Temporal layers before spatial ones, through the SFU with real VP9: libvpx encodes the test
/// pattern as `L2T3_KEY` (320×240 over 160×120, temporal pattern 0 2 1 2), the packetizer writes
/// RFC 9628 descriptors, the SFU forwards to a subscriber that wants the big layer, and that
/// subscriber's REMB sits between what the big layer costs at 15 fps and at 30 fps. After the
/// allocator's grace and hold it gets the big layer at 15 fps (TL0 and TL1), not the small one,
/// and a VP9 decoder fed what arrived decodes every picture at 320×240 with the pattern's own
/// numbers in order, missing only the TL2 pictures.
@Suite(.serialized) struct SVCTemporalAllocationTests {
    /// A picture the publisher sent: its pattern number, temporal layer and whether it was a key picture.
    typealias Published = (number: Int, temporal: Int, key: Bool)

    @Test func aSubscriberShortOfTheBigLayersFullFrameRateGetsItAtHalfTheRateAndDecodesInOrder() throws {
        let h = try SFUHarness()
        var parameters = RTPParameters(mid: "1", codecs: [.vp9(payloadType: 98)], headerExtensions: SFUHarness.publisherExtensions,
                                       encodings: [RTPEncodingParameters(ssrc: 0x9999)])
        parameters.spatialLayers = ["camera_big", "camera_small"]
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: parameters, muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: VP9ForwardingTests.subscriber(),
                               preferredLayer: "camera_big", paused: false, now: h.now)
        let consumer = try #require(h.core.consumers["bob/cam"] as? SVCConsumer)

        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var configuration = VPXEncoder.Configuration(width: 320, height: 240, codec: .vp9)
        configuration.bitrate = 600_000
        configuration.scalabilityMode = .l2t3Key
        let encoder = try VPXEncoder(configuration: configuration)
        var packetizer = VP9Packetizer(maxPayloadSize: 1100, initialPictureID: 1)
        var sequence: UInt16 = 1
        var published: [Published] = []
        var keyRequests = 0
        var temporalTargets: [Int?] = []   // the consumer's temporal target after each picture
        var lastEstimate = 0

        /// The REMB a receiver behind a link between the big layer's 15 and 30 fps costs sends.
        func remb() throws -> Int {
            let ladder = consumer.ladderBitrates(now: h.now)
            try #require(ladder.count == 6, "ladder \(ladder)")
            let overhead = 1 + h.subscriber.allocator.configuration.overhead
            let (half, full) = (Double(ladder[4]) * overhead, Double(ladder[5]) * overhead)
            try #require(half < full * 0.95, "ladder \(ladder)")
            let estimate = Int((half + full) / 2)
            h.subscriberRTCP([.remb(ReceiverEstimatedMaxBitrate(senderSSRC: 0xB0B, bitrate: UInt64(estimate), ssrcs: [0xAAAA]))])
            return estimate
        }

        func publish(_ numbers: Range<Int>, limited: Bool) throws {
            for number in numbers {
                if limited, number % 15 == 0 { lastEstimate = try remb() }
                // A key picture when the SFU asked for one (PLI or FIR).
                let asked = h.publisherSink.rtcpPackets.filter {
                    switch $0 { case .pictureLossIndication, .fullIntraRequest: return true; default: return false }
                }.count
                let picture = try #require(try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: asked > keyRequests))
                keyRequests = asked
                let payloads = packetizer.packetize(picture)
                for (index, payload) in payloads.enumerated() {
                    h.publish(PacketFactory.rtp(pt: 98, seq: sequence, ts: UInt32(number) * 3000, ssrc: 0x9999,
                                                marker: index == payloads.count - 1, payload: payload))
                    sequence &+= 1
                }
                published.append((number, picture.layerFrames[0].temporalID, picture.isKeyFrame))
                for _ in 0 ..< 3 {
                    h.advance(ms: 11)
                    h.tick()
                }
                temporalTargets.append(consumer.targetTemporalLayer)
            }
        }

        try publish(0 ..< 90, limited: false)          // 3 s at the full rate: every picture
        #expect(temporalTargets.allSatisfy { $0 == nil })
        try publish(90 ..< 300, limited: true)          // 7 s behind the limited link
        #expect(consumer.targetLayer == 1 && consumer.targetTemporalLayer == 1)
        // The key picture 0 raised the subscriber through the small layer to the big one; bandwidth
        // never lowered its spatial layer.
        #expect(h.log.layerSwitches.allSatisfy { $0.cause == .requested } && h.log.layerSwitches.last?.layer == "camera_big",
                "never the small layer for bandwidth: \(h.log.layerSwitches)")
        for _ in 0 ..< 20 {                              // what the pacer holds leaves
            h.advance(ms: 10)
            h.tick()
        }
        // The allocation held the full rate through its grace (3 s) and hold, then took 15 fps once.
        let switched = try #require(temporalTargets.firstIndex { $0 == 1 })
        #expect(switched >= 90 + 80 && switched <= 90 + 150, "switched at picture \(switched)")
        #expect(temporalTargets[switched...].allSatisfy { $0 == 1 })

        // What the subscriber got, per picture (VP9 picture ids go through unchanged: number + 1),
        // reassembled per spatial layer and decoded as a big-layer receiver does (`_KEY`: the key
        // picture's S0 then S1 frames alone).
        var order: [Int] = []
        var layers: [Int: [[UInt8]]] = [:]
        for packet in h.subscriberSink.packets where !packet.payload.isEmpty {
            let (descriptor, length) = try VP9PayloadDescriptor.parse(packet.payload)
            let number = Int(descriptor.pictureID ?? 0) - 1
            if layers[number] == nil {
                order.append(number)
                layers[number] = [[], []]
            }
            layers[number]![Int(descriptor.spatialLayer)] += packet.payload[length...]
        }
        let decoder = try VPXDecoder(codec: .vp9)
        var decoded: [Int] = []
        for number in order {
            let key = published[number].key
            let bytes = key ? layers[number]![0] + layers[number]![1] : layers[number]![1]
            let frame = try #require(try decoder.decode(bytes), "picture \(number)")
            #expect(frame.width == 320 && frame.height == 240, "picture \(number)")
            decoded.append(TestPatternReader.frameNumber(in: frame) ?? -1)
        }
        #expect(decoded == order, "the pattern's numbers are the pictures': \(decoded)")
        #expect(decoded == decoded.sorted() && Set(decoded).count == decoded.count)
        // Every picture until the switch; after it exactly the TL0 and TL1 ones.
        let expected = published.filter { $0.number <= switched || $0.temporal <= 1 }.map(\.number)
        #expect(decoded == expected, "decoded \(decoded)")
        // The last 3 s: 15 fps of the big layer.
        let lastSeconds = decoded.filter { $0 >= 210 }.count
        #expect(lastSeconds >= 42 && lastSeconds <= 48, "\(lastSeconds) pictures in the last 3 s")
        print("SVCTemporalAllocationTests: ladder \(consumer.ladderBitrates(now: h.now)) bit/s, REMB \(lastEstimate); 15 fps from picture "
              + "\(switched + 1); \(decoded.count) of \(published.count) pictures decoded at 320×240, \(lastSeconds) in the last 3 s")
    }
}
