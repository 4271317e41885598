import Testing
@testable import RTCWire

/// The scalability modes a sender writes Dependency Descriptors for: each structure survives the
/// wire, and each frame's template says what the encoder's reference pattern makes it depend on
/// (checked against a model of AV1's reference slots, frame by frame, from a key picture on).
struct ScalabilityModeTests {
    /// One frame of the simulated stream.
    struct Frame {
        var number: Int
        var spatial: Int
        var temporal: Int
        var template: UInt8
        var expectedDiffs: [Int]
        var expectedChains: [Int]
        var keyPicture: Bool
    }

    /// The frames of `units` temporal units as the encoder makes them: spatial layer s keeps its
    /// T0 frame in slot 2s and its T1 frame in slot 2s + 1; a key frame fills every slot; chain c
    /// runs through spatial layer c's T0 frames (and the key picture's S0 frame).
    static func simulate(_ mode: ScalabilityMode, units: Int) -> [Frame] {
        var slots = [Int](repeating: 0, count: 8)
        var chainLast = [Int](repeating: 0, count: mode.spatialLayers)
        var frames: [Frame] = []
        var number = 0
        for unit in 0 ..< units {
            let key = unit == 0, position = unit & 3
            for spatial in 0 ..< mode.spatialLayers {
                let temporal = mode.temporalID(position: position)
                let reference = mode.temporalLayers == 1 ? 2 * spatial : position == 3 ? 2 * spatial + 1 : 2 * spatial
                let diffs = key && spatial == 0 ? [] : [number - slots[reference]]
                let chains = key && spatial == 0 ? [Int](repeating: 0, count: mode.spatialLayers) : chainLast.map { number - $0 }
                frames.append(Frame(number: number, spatial: spatial, temporal: temporal,
                                    template: mode.templateID(spatialID: spatial, position: position, keyPicture: key),
                                    expectedDiffs: diffs, expectedChains: chains, keyPicture: key))
                if key && spatial == 0 {
                    slots = [Int](repeating: number, count: 8)
                    for c in chainLast.indices { chainLast[c] = number }
                } else if temporal == 0 {
                    chainLast[spatial] = number
                }
                if temporal == 0 { slots[2 * spatial] = number } else if temporal == 1 { slots[2 * spatial + 1] = number }
                number += 1
            }
        }
        return frames
    }

    @Test(arguments: ScalabilityMode.allCases)
    func everyTemplateMatchesTheReferencePattern(_ mode: ScalabilityMode) {
        let structure = mode.structure
        #expect(structure.spatialLayerCount == mode.spatialLayers)
        #expect(structure.temporalLayerCount == mode.temporalLayers)
        let templates = structure.templates
        for frame in Self.simulate(mode, units: 13) {
            let t = templates[Int(frame.template)]
            #expect(t.spatialID == frame.spatial && t.temporalID == frame.temporal, "frame \(frame.number)")
            #expect(t.frameDiffs == frame.expectedDiffs, "frame \(frame.number) (S\(frame.spatial)T\(frame.temporal))")
            #expect(t.chainDiffs == frame.expectedChains, "frame \(frame.number) chains")
            // A decode target holds the frame when its layers do: with `_KEY`, the key picture's
            // S0 frame is in every target, later frames only in their own spatial layer's.
            for dt in 0 ..< structure.decodeTargetCount {
                let spatial = structure.spatialID(ofDecodeTarget: dt), temporal = structure.temporalID(ofDecodeTarget: dt)
                let holds = frame.temporal <= temporal && (frame.spatial == spatial || (frame.keyPicture && frame.spatial < spatial))
                #expect((t.indications[dt] != .notPresent) == holds, "frame \(frame.number) target \(dt)")
            }
        }
    }

    @Test(arguments: ScalabilityMode.allCases)
    func aKeyFramesDescriptorCarriesTheStructure(_ mode: ScalabilityMode) throws {
        var writer = DependencyDescriptorWriter(firstFrameNumber: 65_535)
        writer.beginFrame(mode: mode, templateID: 0, startsSequence: true)
        var bytes = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
        let length = try #require(bytes.withUnsafeMutableBytes { writer.write(into: $0, first: true, last: false) })
        print("ScalabilityModeTests: \(mode.rawValue) key frame descriptor \(length) bytes")
        var reader = DependencyDescriptorReader()
        let first = try reader.read(Array(bytes.prefix(length)))
        #expect(first.carriesStructure && first.startOfFrame && !first.endOfFrame && first.frameNumber == 65_535)
        #expect(reader.structure == mode.structure)
        // The next frame: three bytes, the frame number wrapped.
        writer.beginFrame(mode: mode, templateID: mode.templateID(spatialID: 0, position: 1, keyPicture: false), startsSequence: false)
        let next = try #require(bytes.withUnsafeMutableBytes { writer.write(into: $0, first: true, last: true) })
        #expect(next == 3)
        let d = try reader.read(Array(bytes.prefix(next)))
        #expect(d.frameNumber == 0 && d.templateID == mode.templateID(spatialID: 0, position: 1, keyPicture: false))
    }
}
