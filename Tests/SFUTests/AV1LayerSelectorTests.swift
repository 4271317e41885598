import RTCWire
import Testing
@testable import SFU

/// `AV1LayerSelector` on Dependency Descriptors Chromium sent for `L3T3_KEY`
/// (`ChromiumL3T3Key`): decode targets 0…8 are S0T0, S0T1, S0T2, S1T0 … S2T2; after the key frame
/// each spatial layer refers only to itself, so a subscriber gets the frames of one spatial layer.
struct AV1LayerSelectorTests {
    typealias F = ChromiumL3T3Key

    /// Runs `packets` through `selector` with their stream's reader; returns what was kept as
    /// (frame number, spatial id, marker, active decode targets).
    static func run(_ selector: inout AV1LayerSelector, _ reader: inout DependencyDescriptorReader,
                    _ packets: [F.Packet]) throws -> [(frame: UInt16, spatial: UInt8, marker: Bool, active: UInt32)] {
        var kept: [(UInt16, UInt8, Bool, UInt32)] = []
        for p in packets {
            let d = try reader.read(p.descriptor)
            if d.carriesStructure { selector.learn(reader.structure!) }
            let verdict = selector.select(d, active: reader.activeDecodeTargets, timestamp: p.ts, marker: p.marker)
            if verdict.forward { kept.append((d.frameNumber, d.spatialID, verdict.marker, verdict.activeDecodeTargets)) }
        }
        return kept
    }

    @Test func theStructureIsChromiumsL3T3Key() throws {
        var reader = DependencyDescriptorReader()
        let key = try reader.read(F.threeLayers[0].descriptor)
        let s = try #require(reader.structure)
        #expect(key.carriesStructure && key.frameNumber == 1263 && s.decodeTargetCount == 9 && s.chainCount == 3)
        #expect((0 ..< 9).map(s.spatialID(ofDecodeTarget:)) == [0, 0, 0, 1, 1, 1, 2, 2, 2])
        #expect((0 ..< 9).map(s.temporalID(ofDecodeTarget:)) == [0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect((0 ..< 3).compactMap { s.resolution(spatialID: $0)?.width } == [320, 640, 1280])
        #expect(reader.activeDecodeTargets == 0b1_1111_1111)
        // What a subscriber of each top decode target can decode too: its own spatial layer only.
        let targets = AV1LayerSelector.DecodeTargets(s)
        #expect(targets.contained[8] == 0b1_1100_0000 && targets.contained[2] == 0b0_0000_0111)
    }

    @Test func anUpperLayersSubscriberCostsItsOwnLayerOnly() throws {
        var selector = AV1LayerSelector(targetSpatial: 2)
        var reader = DependencyDescriptorReader()
        #expect(selector.spatialLayer(2, includes: 0, active: 0))   // no structure yet: the safe estimate
        _ = try Self.run(&selector, &reader, [F.threeLayers[0]])
        let active = reader.activeDecodeTargets
        #expect(!selector.spatialLayer(2, includes: 0, active: active) && !selector.spatialLayer(2, includes: 1, active: active))
        #expect(!selector.spatialLayer(1, includes: 0, active: active))
    }

    @Test func theSmallLayerGetsSpatialLayerZeroWithAMarkerOnEachFrame() throws {
        var selector = AV1LayerSelector(targetSpatial: 0)
        var reader = DependencyDescriptorReader()
        let kept = try Self.run(&selector, &reader, F.threeLayers)
        #expect(kept.allSatisfy { $0.spatial == 0 && $0.marker && $0.active == 0b111 })
        var all = DependencyDescriptorReader()
        let s0Frames = try F.threeLayers.compactMap { p -> UInt16? in
            let d = try all.read(p.descriptor)
            return d.spatialID == 0 ? d.frameNumber : nil
        }
        #expect(kept.map(\.frame) == s0Frames && s0Frames.count > 5)
    }

    @Test func theBigLayerGetsTheKeyPictureThenOnlyItsOwnLayer() throws {
        var selector = AV1LayerSelector(targetSpatial: 2)
        var reader = DependencyDescriptorReader()
        let kept = try Self.run(&selector, &reader, F.threeLayers)
        // The key picture: S0, S1 and three packets of S2; then S2 frames alone.
        #expect(kept.prefix(5).map(\.spatial) == [0, 1, 2, 2, 2])
        #expect(kept.dropFirst(5).allSatisfy { $0.spatial == 2 })
        // The marker is the publisher's: the end of each temporal unit's S2 frame.
        #expect(kept.filter(\.marker).count == Set(F.threeLayers.map(\.ts)).count)
        #expect(kept.allSatisfy { $0.active == 0b1_1100_0000 })
    }

    @Test func theStartWaitsForAKeyFrame() throws {
        var selector = AV1LayerSelector(targetSpatial: 1)
        var reader = DependencyDescriptorReader()
        _ = try Self.run(&selector, &reader, [F.threeLayers[0]])   // the structure, as if forwarded to others
        selector.restart()
        #expect(selector.needsKeyFrame)
        let kept = try Self.run(&selector, &reader, Array(F.threeLayers.dropFirst(5)))
        #expect(kept.isEmpty && selector.needsKeyFrame)
    }

    @Test func goingUpWaitsForTheNextKeyFrame() throws {
        var selector = AV1LayerSelector(targetSpatial: 0)
        var reader = DependencyDescriptorReader()
        let first = try Self.run(&selector, &reader, Array(F.threeLayers.prefix(20)))
        #expect(first.allSatisfy { $0.spatial == 0 })
        // Up: S2's chain is broken (its frames were not forwarded), so nothing changes until a key frame.
        selector.targetSpatial = 2
        let up = try Self.run(&selector, &reader, Array(F.threeLayers.dropFirst(20)))
        #expect(up.allSatisfy { $0.spatial == 0 } && selector.needsKeyFrame && selector.pendingTarget == 8)
        // The next key frame (the same one again, a new coded video sequence) switches.
        let key = try Self.run(&selector, &reader, Array(F.threeLayers.prefix(8)))
        #expect(key.map(\.spatial) == [0, 1, 2, 2, 2, 2] && !selector.needsKeyFrame && selector.currentSpatial == 2)
    }

    @Test func goingDownOnceTheSmallChainWentOnWithoutTheSubscriberWaitsForAKeyFrame() throws {
        var selector = AV1LayerSelector(targetSpatial: 2)
        var reader = DependencyDescriptorReader()
        // Frame 1275 (S0T0, the next of S0's chain) is not forwarded to an S2 subscriber.
        _ = try Self.run(&selector, &reader, Array(F.threeLayers.prefix(20)))
        selector.targetSpatial = 0
        let down = try Self.run(&selector, &reader, Array(F.threeLayers.dropFirst(20)))
        #expect(!down.isEmpty && down.allSatisfy { $0.spatial == 2 } && selector.needsKeyFrame && selector.pendingTarget == 2)
    }

    @Test func downRightAfterTheKeyFrameWhileTheSmallChainIsIntact() throws {
        var selector = AV1LayerSelector(targetSpatial: 2)
        var reader = DependencyDescriptorReader()
        _ = try Self.run(&selector, &reader, Array(F.threeLayers.prefix(8)))
        // Frame 1269 (S0T1) refers to the key frame only, the last of S0's chain: it decodes.
        selector.targetSpatial = 0
        let down = try Self.run(&selector, &reader, Array(F.threeLayers[8 ..< 14]))
        #expect(down.first?.frame == 1269 && down.allSatisfy { $0.spatial == 0 && $0.marker } && !selector.needsKeyFrame)
    }

    @Test func withTwoLayersActiveTheBigSubscriberGetsTheMediumLayer() throws {
        var selector = AV1LayerSelector(targetSpatial: 2)
        var reader = DependencyDescriptorReader()
        let kept = try Self.run(&selector, &reader, F.twoLayersActive)
        #expect(reader.activeDecodeTargets == 0b0_0011_1111)
        #expect(kept.first.map { $0.spatial == 0 } == true && kept.dropFirst().allSatisfy { $0.spatial == 1 })
        #expect(kept.allSatisfy { $0.active == 0b0_0011_1000 } && kept.dropFirst().allSatisfy(\.marker))
        #expect(!selector.needsKeyFrame)
    }
}
