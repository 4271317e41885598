import Testing
@testable import RTCWire

/// `DependencyDescriptorWriter` with spatial layers paused (dynacast): while a decode target is
/// off, every packet carries active_decode_targets_bitmask with the decode targets left (a key
/// frame's too: the structure alone would reset them to all, av1-rtp-spec §A.4); the first
/// temporal unit with every layer back carries the full mask, and later ones none (the mask
/// holds until changed). Read back with the project's parser, as an SFU reads them.
struct DependencyDescriptorWriterTests {
    typealias Written = (descriptor: DependencyDescriptor, bytes: Int, readerActive: UInt32)

    /// Writes one L2T3_KEY temporal unit with spatial layers `0 ..< active`, two packets per frame,
    /// as the SDK's RTP sender does; returns each packet's descriptor as `reader` reads it.
    static func unit(_ writer: inout DependencyDescriptorWriter, _ reader: inout DependencyDescriptorReader,
                     position: Int, active: Int, key: Bool = false) throws -> [Written] {
        let mode = ScalabilityMode.l2t3Key
        writer.beginTemporalUnit(mode: mode, activeSpatialLayers: active)
        var written: [Written] = []
        for spatial in 0 ..< active {
            writer.beginFrame(mode: mode, templateID: mode.templateID(spatialID: spatial, position: position, keyPicture: key),
                              startsSequence: key && spatial == 0)
            for packet in 0 ..< 2 {
                var bytes = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
                let length = try #require(bytes.withUnsafeMutableBytes { writer.write(into: $0, first: packet == 0, last: packet == 1) })
                let d = try reader.read(Array(bytes.prefix(length)))
                #expect(d.spatialID == UInt8(spatial) && d.startOfFrame == (packet == 0) && d.endOfFrame == (packet == 1))
                written.append((d, length, reader.activeDecodeTargets))
            }
        }
        writer.skipFrames(mode.spatialLayers - active)
        return written
    }

    @Test func pausedTargetsAreSaidOffInEveryPacketAndTheirReturnOnce() throws {
        var writer = DependencyDescriptorWriter(firstFrameNumber: 65_530)
        var reader = DependencyDescriptorReader()
        let s0Targets: UInt32 = 0b000_111, all: UInt32 = 0b111_111
        #expect(ScalabilityMode.l2t3Key.decodeTargets(spatialLayers: 1) == s0Targets)
        #expect(ScalabilityMode.l2t3Key.decodeTargets(spatialLayers: 2) == all)

        // Both layers: no mask (the structure says every target is active).
        let key = try Self.unit(&writer, &reader, position: 0, active: 2, key: true)
        #expect(key.allSatisfy { $0.descriptor.activeDecodeTargets == nil && $0.readerActive == all })
        let both = try Self.unit(&writer, &reader, position: 1, active: 2)
        #expect(both.allSatisfy { $0.descriptor.activeDecodeTargets == nil && $0.bytes == 3 })

        // S1 paused: every packet of every unit says only S0's targets are active.
        for position in 2 ..< 6 {
            let paused = try Self.unit(&writer, &reader, position: position & 3, active: 1)
            #expect(paused.count == 2)
            #expect(paused.allSatisfy { $0.descriptor.activeDecodeTargets == s0Targets && $0.readerActive == s0Targets },
                    "\(paused.map { $0.descriptor.activeDecodeTargets as Any })")
        }
        // A key picture while paused (a subscriber asked): the structure and the mask after it.
        let pausedKey = try Self.unit(&writer, &reader, position: 0, active: 1, key: true)
        #expect(pausedKey[0].descriptor.carriesStructure)
        print("DependencyDescriptorWriterTests: key frame descriptor with structure and mask \(pausedKey[0].bytes) bytes")
        #expect(pausedKey.allSatisfy { $0.descriptor.activeDecodeTargets == s0Targets && $0.readerActive == s0Targets })

        // S1 back at a key picture: the whole unit says all are active, the next unit nothing.
        let resumed = try Self.unit(&writer, &reader, position: 0, active: 2, key: true)
        #expect(resumed.count == 4 && resumed[0].descriptor.carriesStructure)
        #expect(resumed.allSatisfy { $0.descriptor.activeDecodeTargets == all && $0.readerActive == all })
        let after = try Self.unit(&writer, &reader, position: 1, active: 2)
        #expect(after.allSatisfy { $0.descriptor.activeDecodeTargets == nil && $0.bytes == 3 && $0.readerActive == all })

        // Frame numbers: one per layer frame, the paused layer's frames left unused.
        let numbers = (key + both).filter(\.descriptor.startOfFrame).map(\.descriptor.frameNumber)
        #expect(numbers == [65_530, 65_531, 65_532, 65_533])
        #expect(resumed[0].descriptor.frameNumber == 65_530 &+ 14)   // 2 + 2 + 4 × 2 + 2 frame numbers before
    }

    @Test func theWrittenMaskIsTheFieldTheSpecDefines() throws {
        // A three-byte frame gains the extended fields: five flags with only
        // active_decode_targets_present_flag set, then DtCnt (6) mask bits, zero padding.
        var writer = DependencyDescriptorWriter(firstFrameNumber: 0x1234)
        let mode = ScalabilityMode.l2t3Key
        writer.beginTemporalUnit(mode: mode, activeSpatialLayers: 1)
        writer.beginFrame(mode: mode, templateID: mode.templateID(spatialID: 0, position: 1, keyPicture: false), startsSequence: false)
        var bytes = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
        let length = try #require(bytes.withUnsafeMutableBytes { writer.write(into: $0, first: true, last: true) })
        // start=1 end=1 template=3 (S0 T2 after T0) | frame 0x1234 | flags 01000, mask 000 | 111, pad 00000
        #expect(Array(bytes.prefix(length)) == [0b1100_0011, 0x12, 0x34, 0b0100_0000, 0b1110_0000])
    }

    @Test func singleLayerModesNeverWriteAMask() throws {
        var writer = DependencyDescriptorWriter()
        for mode in [ScalabilityMode.l1t1, .l1t3] {
            writer.beginTemporalUnit(mode: mode, activeSpatialLayers: 1)
            writer.beginFrame(mode: mode, templateID: mode.templateID(spatialID: 0, position: 1, keyPicture: false), startsSequence: false)
            var bytes = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
            #expect(bytes.withUnsafeMutableBytes { writer.write(into: $0, first: true, last: true) } == 3)
        }
    }
}
