import Testing
import TestRandom
@testable import RTCWire

/// The AV1 Dependency Descriptor (av1-rtp-spec Appendix A), from fixtures written field by field.
/// The structure is the spec's L1T3 example (§A.10.2.1): three decode targets (30, 15 and
/// 7.5 fps), one chain of the temporal base layer.
struct DependencyDescriptorTests {
    /// Bytes from fields written as bit strings, high bit first, zero-padded to a byte.
    static func bits(_ fields: [String]) -> [UInt8] {
        let all = fields.joined()
        var bytes = [UInt8](repeating: 0, count: (all.count + 7) / 8)
        for (i, bit) in all.enumerated() where bit == "1" { bytes[i / 8] |= 0x80 >> UInt8(i % 8) }
        return bytes
    }

    /// template_dependency_structure() of the L1T3 example, with 640×360.
    static let l1t3StructureBits = [
        "000001", "00010",                  // template_id_offset=1, dt_cnt_minus_one=2 (DtCnt 3)
        "00", "01", "01", "00", "11",       // next_layer_idc: T0 S0T0, T1 S0T0, T2 S0T1, T3 S0T2, T4 S0T2, end
        "101010", "101010",                 // DTIs T0, T1: S S S
        "100100", "010000", "010000",       // T2: S D -, T3: D - -, T4: D - -
        "0",                                // T0: no fdiffs
        "1", "0011", "0",                   // T1: fdiff 4
        "1", "0001", "0",                   // T2: fdiff 2
        "1", "0000", "0",                   // T3: fdiff 1
        "1", "0000", "0",                   // T4: fdiff 1
        "01",                               // chain_cnt = ns(4) → 1 (2 bits: below m = 4)
                                            // decode_target_protected_by: ns(1), no bits
        "0000", "0100", "0010", "0001", "0011",   // template chain fdiffs T0…T4: 0 4 2 1 3
        "1", "0000001001111111", "0000000101100111",   // resolutions: 639+1 × 359+1
    ]

    static let l1t3 = DependencyStructure(
        templateIDOffset: 1, decodeTargetCount: 3, chainCount: 1, protectedBy: [0, 0, 0],
        templates: [
            DependencyTemplate(spatialID: 0, temporalID: 0, indications: [.switch, .switch, .switch], chainDiffs: [0]),
            DependencyTemplate(spatialID: 0, temporalID: 0, indications: [.switch, .switch, .switch], frameDiffs: [4], chainDiffs: [4]),
            DependencyTemplate(spatialID: 0, temporalID: 1, indications: [.switch, .discardable, .notPresent], frameDiffs: [2], chainDiffs: [2]),
            DependencyTemplate(spatialID: 0, temporalID: 2, indications: [.discardable, .notPresent, .notPresent], frameDiffs: [1], chainDiffs: [1]),
            DependencyTemplate(spatialID: 0, temporalID: 2, indications: [.discardable, .notPresent, .notPresent], frameDiffs: [1], chainDiffs: [3]),
        ],
        resolutions: [(640, 360)])

    /// The key frame's packet: mandatory fields, the structure, template 0 (id 1).
    static let keyFrame = bits([
        "1", "1", "000001", "0000000100000010",   // start, end, template id 1, frame 258
        "1", "0", "0", "0", "0",                   // structure present; no mask, no custom values
    ] + l1t3StructureBits)

    // MARK: - Fixtures

    @Test func theKeyFrameCarriesTheStructureAndUsesItsFirstTemplate() throws {
        var reader = DependencyDescriptorReader()
        let d = try reader.read(Self.keyFrame)
        #expect(d.startOfFrame && d.endOfFrame && d.templateID == 1 && d.frameNumber == 258)
        #expect(d.carriesStructure && d.activeDecodeTargets == nil)
        #expect(d.spatialID == 0 && d.temporalID == 0 && d.frameDiffList == [] && d.chainDiffList == [0])
        #expect((0 ..< 3).map(d.indication(for:)) == [.switch, .switch, .switch])
        let structure = try #require(reader.structure)
        #expect(structure == Self.l1t3)
        #expect(structure.spatialLayerCount == 1 && structure.temporalLayerCount == 3)
        #expect((0 ..< 3).map(structure.temporalID(ofDecodeTarget:)) == [2, 1, 0])
        #expect(structure.chain(protecting: 2) == 0)
        #expect(structure.resolution(spatialID: 0)?.width == 640 && structure.resolution(spatialID: 0)?.height == 360)
        #expect(reader.activeDecodeTargets == 0b111)
        #expect(d.serialize(structure: structure) == Self.keyFrame)
    }

    @Test func laterPacketsOfThreeBytesReferToTheKeptStructure() throws {
        var reader = DependencyDescriptorReader()
        _ = try reader.read(Self.keyFrame)
        let d = try reader.read(Self.bits([
            "1", "0", "000011", "0000000100000100",   // start, not end, template id 3 (index 2), frame 260
        ]))
        #expect(d.startOfFrame && !d.endOfFrame && d.frameNumber == 260 && !d.carriesStructure)
        #expect(d.spatialID == 0 && d.temporalID == 1 && d.frameDiffList == [2] && d.chainDiffList == [2])
        #expect((0 ..< 3).map(d.indication(for:)) == [.switch, .discardable, .notPresent])
        #expect(d.layout == .init(extended: false, maskOffset: 24, hadMask: false, frameDefinition: 24 ..< 24, length: 3, decodeTargetCount: 3))
    }

    @Test func customIndicationsFrameDiffsChainsAndAnActiveMask() throws {
        var reader = DependencyDescriptorReader()
        _ = try reader.read(Self.keyFrame)
        let value = Self.bits([
            "0", "1", "000101", "0000000100001000",   // end only, template id 5 (index 4), frame 264
            "0", "1", "1", "1", "1",                   // no structure; mask, custom DTIs, fdiffs, chains
            "011",                                     // active_decode_targets_bitmask: DT0, DT1
            "11", "01", "00",                          // DTIs: R D -
            "01", "0010",                              // fdiff size 1: 2+1 = 3
            "10", "00010011",                          // fdiff size 2: 19+1 = 20
            "00",                                      // no more fdiffs
            "00000110",                                // chain 0: 6
        ])
        let d = try reader.read(value)
        #expect(!d.startOfFrame && d.endOfFrame && d.frameNumber == 264)
        #expect(d.activeDecodeTargets == 0b011 && reader.activeDecodeTargets == 0b011)
        #expect((0 ..< 3).map(d.indication(for:)) == [.required, .discardable, .notPresent])
        #expect(d.frameDiffList == [3, 20] && d.chainDiffList == [6])
        #expect(d.spatialID == 0 && d.temporalID == 2)   // layers still come from the template
        #expect(d.layout.extended && d.layout.hadMask && d.layout.maskOffset == 29 && d.layout.frameDefinition == 32 ..< 64)
        #expect(d.serialize(structure: nil) == value)
    }

    // MARK: - Rewriting the active decode targets

    @Test func aThreeByteValueGainsAMaskAndKeepsItsFrame() throws {
        var reader = DependencyDescriptorReader()
        _ = try reader.read(Self.keyFrame)
        let source = Self.bits(["1", "1", "000010", "0000000100000011"])   // template id 2, frame 259
        let d = try reader.read(source)
        let rewritten = rewrite(source, d, mask: 0b100)
        #expect(rewritten == Self.bits([
            "1", "1", "000010", "0000000100000011",   // unchanged
            "0", "1", "0", "0", "0",                   // only active_decode_targets_present_flag
            "100",                                     // DT2 (7.5 fps) alone
        ]))
        var again = DependencyDescriptorReader()
        _ = try again.read(Self.keyFrame)
        let read = try again.read(rewritten)
        #expect(read.activeDecodeTargets == 0b100 && read.frameNumber == 259 && read.frameDiffList == [4])
    }

    @Test func theKeyFrameKeepsItsStructureAndGetsTheMaskAfterIt() throws {
        var reader = DependencyDescriptorReader()
        let d = try reader.read(Self.keyFrame)
        let rewritten = rewrite(Self.keyFrame, d, mask: 0b110)
        var again = DependencyDescriptorReader()
        let read = try again.read(rewritten)
        #expect(read.carriesStructure && read.activeDecodeTargets == 0b110 && again.structure == Self.l1t3)
        #expect(again.activeDecodeTargets == 0b110)
    }

    @Test func aMaskAlreadySentIsReplacedAndCustomValuesKept() throws {
        var reader = DependencyDescriptorReader()
        _ = try reader.read(Self.keyFrame)
        let source = Self.bits(["0", "1", "000101", "0000000100001000", "0", "1", "1", "1", "1", "011",
                                "11", "01", "00", "01", "0010", "10", "00010011", "00", "00000110"])
        let d = try reader.read(source)
        let read = try reader.read(rewrite(source, d, mask: 0b001), keepsStructure: false)
        #expect(read.activeDecodeTargets == 0b001)
        #expect(read.frameDiffList == [3, 20] && read.chainDiffList == [6] && read.indications == d.indications)
    }

    func rewrite(_ source: [UInt8], _ d: DependencyDescriptor, mask: UInt32) -> [UInt8] {
        var out = [UInt8](repeating: 0xFF, count: 64)
        let count = source.withUnsafeBytes { s in out.withUnsafeMutableBytes { d.layout.rewrite(s, activeDecodeTargets: mask, into: $0) } }
        #expect(count == d.layout.rewrittenLength())
        return Array(out.prefix(count ?? 0))
    }

    // MARK: - Robustness

    @Test func malformedValuesAreRejectedByName() throws {
        var reader = DependencyDescriptorReader()
        #expect(throws: DependencyDescriptorError.truncated) { try reader.read([0xC1, 0x01]) }
        #expect(throws: DependencyDescriptorError.missingStructure) { try reader.read([0xC1, 0x01, 0x02]) }
        // A structure cut off in its templates.
        #expect(throws: DependencyDescriptorError.truncated) { try reader.read(Array(Self.keyFrame.prefix(8))) }
        #expect(reader.structure == nil)
        _ = try reader.read(Self.keyFrame)
        // Template id 7: index 6, the structure has 5.
        #expect(throws: DependencyDescriptorError.unknownTemplate(7)) { try reader.read(Self.bits(["1", "1", "000111", "0000000100000011"])) }
        // Spatial id 4: next_layer_idc 2 four times.
        let deep = Self.bits(["1", "1", "000000", "0000000000000001", "1", "0", "0", "0", "0", "000000", "00000",
                              "10", "10", "10", "10", "11"] + Array(repeating: "00", count: 5) + Array(repeating: "0", count: 5) + ["0", "0"])
        #expect(throws: DependencyDescriptorError.layerOutOfRange) { try reader.read(deep) }
        // 65 templates of S0T0.
        let many = Self.bits(["1", "1", "000000", "0000000000000001", "1", "0", "0", "0", "0", "000000", "00000"]
                             + Array(repeating: "00", count: 64) + ["11"] + Array(repeating: "0", count: 200))
        #expect(throws: DependencyDescriptorError.tooManyTemplates) { try reader.read(many) }
        // Nine custom frame diffs.
        let diffs = Self.bits(["1", "1", "000001", "0000000100000011", "0", "0", "0", "1", "0"]
                              + Array(repeating: "010000", count: 9) + ["00"])
        #expect(throws: DependencyDescriptorError.tooManyFrameDiffs) { try reader.read(diffs) }
        // None of them replaced the structure.
        #expect(reader.structure == Self.l1t3)
    }

    @Test func randomValuesNeverCrashAndThoseThatParseRoundTrip() throws {
        var random = SeededRandom(seed: 0xDD)
        var parsed = 0
        for round in 0 ..< 20_000 {
            var reader = DependencyDescriptorReader()
            _ = try reader.read(Self.keyFrame)
            var value: [UInt8]
            if round % 2 == 0 {
                // Mutations of the key frame reach deep into the structure.
                value = Self.keyFrame
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
                    value[Int.random(in: 0 ..< value.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0 ... 7, using: &random)
                }
                value = Array(value.prefix(Int.random(in: 0 ... value.count, using: &random)))
            } else {
                value = (0 ..< Int.random(in: 0 ... 24, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            }
            guard let d = try? reader.read(value) else { continue }
            parsed += 1
            let bytes = d.serialize(structure: reader.structure)
            #expect(bytes.count <= value.count)
            var again = DependencyDescriptorReader()
            if !d.carriesStructure { _ = try again.read(Self.keyFrame) }
            let read = try again.read(bytes)
            #expect(read == d)
            if d.carriesStructure { #expect(again.structure == reader.structure) }
        }
        #expect(parsed > 1000)
    }
}
