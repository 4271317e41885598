import RTCMedia
import Testing
@testable import SFU

/// `VP9LayerSelector` on an `L3T3_KEY`-shaped stream as Chromium sends it (RFC 9628): every
/// picture has 3 spatial layer frames of 2 packets each (B on the first, E on the second); the
/// temporal pattern is 0, 2, 1, 2; upper spatial layers are inter-picture predicted (P = 1)
/// except in key pictures; the publisher's marker ends each picture's top layer.
struct VP9LayerSelectorTests {
    struct Packet: Equatable {
        var picture: Int
        var spatial: UInt8
        var temporal: UInt8
        var first: Bool
        var descriptor: VP9PayloadDescriptor
        var marker: Bool
        var timestamp: UInt32 { UInt32(picture) * 3000 }
    }

    /// The packets of pictures `range`, key pictures at `keys`.
    static func stream(_ range: Range<Int>, keys: Set<Int> = [0], spatialLayers: UInt8 = 3) -> [Packet] {
        var packets: [Packet] = []
        for picture in range {
            let key = keys.contains(picture)
            let temporal: UInt8 = key ? 0 : [0, 2, 1, 2][picture % 4]
            for spatial in 0 ..< spatialLayers {
                for first in [true, false] {
                    var d = VP9PayloadDescriptor()
                    d.pictureID = UInt16(picture)
                    d.interPicturePredicted = !key
                    d.beginningOfFrame = first
                    d.endOfFrame = !first
                    d.temporalID = temporal
                    d.switchingUpPoint = temporal > 0
                    d.spatialID = spatial
                    d.interLayerDependency = key && spatial > 0
                    d.tl0PicIndex = UInt8(picture / 4)
                    packets.append(Packet(picture: picture, spatial: spatial, temporal: temporal, first: first, descriptor: d,
                                          marker: !first && spatial == spatialLayers - 1))
                }
            }
        }
        return packets
    }

    /// Runs `packets` through `selector`; returns what was kept as (picture, spatial, marker).
    static func run(_ selector: inout VP9LayerSelector, _ packets: [Packet]) -> [(Int, UInt8, Bool)] {
        packets.compactMap { p in
            let verdict = selector.select(p.descriptor, timestamp: p.timestamp, marker: p.marker)
            return verdict.forward ? (p.picture, p.spatial, verdict.marker) : nil
        }
    }

    @Test func theSmallLayerGetsSpatialLayerZeroWithAMarkerAtTheEndOfEachPicture() {
        var selector = VP9LayerSelector(targetSpatial: 0)
        let kept = Self.run(&selector, Self.stream(0 ..< 4))
        #expect(kept.map(\.1) == Array(repeating: 0, count: 8))
        #expect(kept.map(\.0) == [0, 0, 1, 1, 2, 2, 3, 3])
        #expect(kept.map(\.2) == [false, true, false, true, false, true, false, true])
    }

    @Test func aStartWaitsForAKeyPictureThenTakesEveryLayerInIt() {
        var selector = VP9LayerSelector(targetSpatial: 2)
        #expect(selector.needsKeyFrame)
        let kept = Self.run(&selector, Self.stream(1 ..< 6, keys: [3]))
        #expect(kept.first.map { $0.0 } == 3)
        #expect(kept.count == 3 * 6)
        #expect(kept.filter(\.2).map(\.1) == [2, 2, 2])   // the publisher's marker only
        #expect(!selector.needsKeyFrame && selector.currentSpatial == 2)
    }

    @Test func goingUpWaitsForAKeyPictureAndGoingDownFinishesThePicture() {
        var selector = VP9LayerSelector(targetSpatial: 0)
        _ = Self.run(&selector, Self.stream(0 ..< 2))
        selector.targetSpatial = 2
        // Pictures 2 and 3 are inter-predicted in every layer: still the small layer only.
        let waiting = Self.run(&selector, Self.stream(2 ..< 4))
        #expect(Set(waiting.map(\.1)) == [0] && selector.needsKeyFrame)
        // Picture 4 is a key picture: all three layers from its start.
        let raised = Self.run(&selector, Self.stream(4 ..< 6, keys: [4]))
        #expect(raised.map(\.1) == [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2])
        // Lowered in the middle of picture 6: its upper layers still go out, picture 7 has layer 0 only.
        let picture6 = Self.stream(6 ..< 7)
        var lowered = Self.run(&selector, Array(picture6.prefix(3)))
        selector.targetSpatial = 0
        lowered += Self.run(&selector, Array(picture6.dropFirst(3)) + Self.stream(7 ..< 8))
        #expect(lowered.map(\.1) == [0, 0, 1, 1, 2, 2, 0, 0])
        #expect(lowered.map(\.2) == [false, false, false, false, false, true, false, true])
    }

    @Test func theMiddleLayerEndsEachPictureWithItsOwnMarker() {
        var selector = VP9LayerSelector(targetSpatial: 1)
        let kept = Self.run(&selector, Self.stream(0 ..< 2))
        #expect(kept.map(\.1) == [0, 0, 1, 1, 0, 0, 1, 1])
        #expect(kept.map(\.2) == [false, false, false, true, false, false, false, true])
    }

    @Test func temporalLayersAreDroppedAndAddedBackAtASwitchingUpPoint() {
        var selector = VP9LayerSelector(targetSpatial: 0, targetTemporal: 0)
        let base = Self.run(&selector, Self.stream(0 ..< 8))
        #expect(base.map(\.0) == [0, 0, 4, 4])   // TID 0 pictures only (0 is key; 4 is TID 0)
        selector.targetTemporal = 2
        let all = Self.run(&selector, Self.stream(8 ..< 12))
        #expect(all.map(\.0) == [8, 8, 9, 9, 10, 10, 11, 11])   // picture 9 (TID 2) has U set
    }

    @Test func pausedSendsNothingAfterThePictureAndRestartsOnAKeyPicture() {
        var selector = VP9LayerSelector(targetSpatial: 0)
        _ = Self.run(&selector, Self.stream(0 ..< 1))
        selector.targetSpatial = nil
        #expect(Self.run(&selector, Self.stream(1 ..< 3)).isEmpty && !selector.needsKeyFrame)
        selector.targetSpatial = 0
        #expect(Self.run(&selector, Self.stream(3 ..< 4)).isEmpty && selector.needsKeyFrame)
        #expect(Self.run(&selector, Self.stream(4 ..< 5, keys: [4])).map(\.0) == [4, 4])
    }

    @Test func aStreamWithoutLayerIndicesIsForwardedWhole() {
        var selector = VP9LayerSelector(targetSpatial: 0)
        var d = VP9PayloadDescriptor()
        d.beginningOfFrame = true
        d.endOfFrame = true
        #expect(selector.select(d, timestamp: 0, marker: true) == .init(forward: true, marker: true))
        d.interPicturePredicted = true
        #expect(selector.select(d, timestamp: 3000, marker: true) == .init(forward: true, marker: true))
    }
}
