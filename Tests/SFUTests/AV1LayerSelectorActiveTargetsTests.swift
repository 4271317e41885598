import RTCWire
import Testing
@testable import SFU

/// A publisher's active decode targets mask (av1-rtp-spec §A.4) as the SDK writes it when dynacast
/// pauses the upper spatial layer of `L2T3_KEY` (`DependencyDescriptorWriter`): a subscriber that
/// wants the big layer falls to S0, which it can start only at a key frame (its frames are not
/// among S1's), so a key frame is asked for at once; it goes back to S1 at the key picture that
/// resumes it.
struct AV1LayerSelectorActiveTargetsTests {
    struct Packet {
        var descriptor: [UInt8]
        var header: UInt8
        var ts: UInt32
        var marker: Bool
    }

    /// Temporal units of an `L2T3_KEY` stream, one packet per layer frame, with descriptors from
    /// the SDK's writer as its RTP sender uses it.
    struct Publisher {
        let mode = ScalabilityMode.l2t3Key
        var writer = DependencyDescriptorWriter(firstFrameNumber: 40_000)
        var sinceKey = 0
        var ts: UInt32 = 0

        mutating func unit(active: Int, key: Bool = false) -> [Packet] {
            if key { sinceKey = 0 }
            let position = sinceKey & 3
            writer.beginTemporalUnit(mode: mode, activeSpatialLayers: active)
            var packets: [Packet] = []
            for spatial in 0 ..< active {
                writer.beginFrame(mode: mode, templateID: mode.templateID(spatialID: spatial, position: position, keyPicture: key),
                                  startsSequence: key && spatial == 0)
                var bytes = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
                let length = bytes.withUnsafeMutableBytes { writer.write(into: $0, first: true, last: true) }!
                // av1-rtp-spec §4.4 aggregation header: one OBU element (W=1), N on a key frame.
                packets.append(Packet(descriptor: Array(bytes.prefix(length)), header: key && spatial == 0 ? 0x18 : 0x10,
                                      ts: ts, marker: spatial == active - 1))
            }
            writer.skipFrames(mode.spatialLayers - active)
            sinceKey += 1
            ts &+= 3000
            return packets
        }

        mutating func units(_ count: Int, active: Int, key: Bool = false) -> [Packet] {
            (0 ..< count).flatMap { unit(active: active, key: key && $0 == 0) }
        }
    }

    static let s0Targets: UInt32 = 0b000_111, s1Targets: UInt32 = 0b111_000

    /// Runs packets through the selector; returns the spatial ids kept and the last verdict's mask.
    static func run(_ selector: inout AV1LayerSelector, _ reader: inout DependencyDescriptorReader,
                    _ packets: [Packet]) throws -> (spatial: [UInt8], active: UInt32?) {
        var kept: [UInt8] = [], active: UInt32?
        for p in packets {
            let d = try reader.read(p.descriptor)
            if d.carriesStructure { selector.learn(reader.structure!) }
            let verdict = selector.select(d, active: reader.activeDecodeTargets, timestamp: p.ts, marker: p.marker)
            if verdict.forward {
                kept.append(d.spatialID)
                active = verdict.activeDecodeTargets
            }
        }
        return (kept, active)
    }

    @Test func theBigSubscriberFallsToS0AtAKeyFrameAndReturnsAtTheResumingKeyPicture() throws {
        var publisher = Publisher()
        var selector = AV1LayerSelector(targetSpatial: 1)
        var reader = DependencyDescriptorReader()
        let start = try Self.run(&selector, &reader, publisher.units(8, active: 2, key: true))
        #expect(start.spatial == [0] + Array(repeating: 1, count: 8) && selector.currentSpatial == 1 && start.active == Self.s1Targets)
        #expect(!selector.needsKeyFrame)

        // S1 paused: its decode targets leave the mask. S0's frames cannot start S0 (its chain
        // went on without this subscriber): nothing is forwarded, and a key frame is needed.
        let paused = try Self.run(&selector, &reader, publisher.units(6, active: 1))
        #expect(reader.activeDecodeTargets == Self.s0Targets)
        #expect(paused.spatial.isEmpty)
        #expect(selector.needsKeyFrame && selector.pendingTarget == 2, "S0T2 is waited for")

        // The key picture asked for (S0 alone, still masked): S0 from there on, said in the mask.
        let fallen = try Self.run(&selector, &reader, publisher.units(6, active: 1, key: true))
        #expect(fallen.spatial == Array(repeating: 0, count: 6) && selector.currentSpatial == 0)
        #expect(fallen.active == Self.s0Targets && !selector.needsKeyFrame)
        #expect(selector.wantsHigherLayer(active: reader.activeDecodeTargets) == false, "S1 is off: nothing higher to want")

        // S1 back at a key picture: the key picture's S0 frame and S1 frames from there on.
        let resumed = try Self.run(&selector, &reader, publisher.units(6, active: 2, key: true))
        #expect(reader.activeDecodeTargets == 0b111_111)
        #expect(resumed.spatial == [0] + Array(repeating: 1, count: 6) && selector.currentSpatial == 1 && resumed.active == Self.s1Targets)
    }

    @Test func withoutTheMaskTheBigSubscriberWouldWaitForS1() throws {
        // The same pause unannounced (what the SDK sent before): the key frame's structure alone
        // says every target is active (§A.4), so the selector starts S1 there and then gets
        // nothing more: S0's later frames are not S1's.
        var publisher = Publisher()
        var selector = AV1LayerSelector(targetSpatial: 1)
        var reader = DependencyDescriptorReader()
        _ = try Self.run(&selector, &reader, publisher.units(8, active: 2, key: true))
        let unannounced = (publisher.unit(active: 1, key: true) + publisher.units(5, active: 1)).map {
            Packet(descriptor: Self.withoutMask($0.descriptor), header: $0.header, ts: $0.ts, marker: $0.marker)
        }
        let kept = try Self.run(&selector, &reader, unannounced)
        #expect(kept.spatial == [0], "only the key frame: S1 is still the target")
        #expect(selector.currentSpatial == 1)
    }

    // MARK: - Through the SFU

    static let pubDD: UInt8 = 13, subDD: UInt8 = 6

    static func producer() -> RTPParameters {
        var parameters = AV1ForwardingTests.producer()
        parameters.spatialLayers = ["camera_big", "camera_small"]
        return parameters
    }

    static func publish(_ h: SFUHarness, _ packets: [Packet], sequence: inout UInt16) {
        for p in packets {
            let packet = RTPPacket(marker: p.marker, payloadType: 45, sequenceNumber: sequence, timestamp: 90_000 &+ p.ts,
                                   ssrc: 0x1A01, extensionProfile: .twoByte,
                                   extensions: [RTPHeaderExtensionElement(id: pubDD, value: p.descriptor)],
                                   payload: [p.header, 0x0A, 0x0B, 0x0C])
            h.publish(packet.serialize())
            sequence &+= 1
        }
    }

    static func keyFrameRequests(_ h: SFUHarness) -> Int {
        h.publisherSink.rtcpPackets.filter {
            switch $0 {
            case .pictureLossIndication, .fullIntraRequest: true
            default: false
            }
        }.count
    }

    @Test func theConsumerAsksForAKeyFrameAtOnceAndTellsTheSubscriber() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: Self.producer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: AV1ForwardingTests.subscriber(),
                               preferredLayer: "camera_big", paused: false, now: h.now)
        var publisher = Publisher(), sequence: UInt16 = 700
        var reader = DependencyDescriptorReader()
        Self.publish(h, publisher.units(8, active: 2, key: true), sequence: &sequence)
        #expect(try AV1ForwardingTests.received(h.subscriberSink.packets, reader: &reader).map(\.spatialID) == [0] + Array(repeating: 1, count: 8))
        #expect(h.log.layerSwitches.map(\.layer) == ["camera_big"])

        // Dynacast pauses S1: the first masked S0 frame makes the consumer ask for a key frame,
        // without waiting for a timer (no tick runs here).
        h.advance(ms: 2000)
        h.publisherSink.clear()
        h.subscriberSink.clear()
        Self.publish(h, publisher.units(4, active: 1), sequence: &sequence)
        #expect(Self.keyFrameRequests(h) == 1)
        #expect(h.subscriberSink.packets.isEmpty, "S0 cannot start without a key frame")

        // The key picture: S0 from there on, its descriptors saying only S0's targets are active.
        h.advance(ms: 100)
        Self.publish(h, publisher.units(5, active: 1, key: true), sequence: &sequence)
        let fallen = try AV1ForwardingTests.received(h.subscriberSink.packets, reader: &reader)
        #expect(fallen.count == 5 && fallen.allSatisfy { $0.spatialID == 0 && $0.activeDecodeTargets == Self.s0Targets })
        #expect(h.subscriberSink.packets.allSatisfy { $0.marker })
        #expect(h.log.layerSwitches.last?.layer == "camera_small" && h.log.layerSwitches.last?.previous == "camera_big")

        // S1 resumes at a key picture: the subscriber is back on it there.
        h.subscriberSink.clear()
        Self.publish(h, publisher.units(5, active: 2, key: true), sequence: &sequence)
        let back = try AV1ForwardingTests.received(h.subscriberSink.packets, reader: &reader)
        #expect(back.map(\.spatialID) == [0] + Array(repeating: 1, count: 5))
        #expect(reader.activeDecodeTargets == Self.s1Targets)
        #expect(h.log.layerSwitches.last?.layer == "camera_big")
    }

    /// The value written again without active_decode_targets_bitmask (as a sender that does not
    /// announce paused layers writes it).
    static func withoutMask(_ value: [UInt8]) -> [UInt8] {
        var reader = DependencyDescriptorReader()
        // Non-key values need the structure: read them with L2T3_KEY's.
        var structureKey = DependencyDescriptorWriter()
        structureKey.beginFrame(mode: .l2t3Key, templateID: 0, startsSequence: true)
        var bytes = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
        let n = bytes.withUnsafeMutableBytes { structureKey.write(into: $0, first: true, last: true) }!
        _ = try! reader.read(Array(bytes.prefix(n)))
        var d = try! reader.read(value)
        d.activeDecodeTargets = nil
        return d.serialize(structure: d.carriesStructure ? reader.structure : nil)
    }
}
