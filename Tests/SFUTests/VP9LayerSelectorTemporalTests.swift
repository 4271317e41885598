import RTCMedia
import Testing
@testable import SFU

/// `VP9LayerSelector`'s temporal layer, as the allocation lowers and raises it (RFC 9628 §4.2:
/// TID, U): down from the next picture, up at a TL0 picture (or a switching-up point), never in
/// the middle of a picture; the spatial layer stays.
struct VP9LayerSelectorTemporalTests {
    typealias S = VP9LayerSelectorTests

    /// The test stream with no switching-up points marked (U = 0): only TL0 pictures raise.
    static func stream(_ range: Range<Int>, keys: Set<Int> = [0]) -> [S.Packet] {
        S.stream(range, keys: keys).map { packet in
            var packet = packet
            packet.descriptor.switchingUpPoint = false
            return packet
        }
    }

    @Test func loweringTheTemporalLayerDropsItsPicturesFromTheNextPictureOnAtEverySpatialLayer() {
        var selector = VP9LayerSelector(targetSpatial: 2)
        _ = S.run(&selector, Self.stream(0 ..< 2))
        selector.targetTemporal = 1
        // Temporal pattern 0 2 1 2: pictures 3, 5, 7 are TL2; 2, 4, 6 are kept whole (3 layers x 2 packets).
        let kept = S.run(&selector, Self.stream(2 ..< 8))
        #expect(Set(kept.map(\.0)) == [2, 4, 6])
        #expect(kept.count == 3 * 6)
        #expect(kept.filter(\.2).map(\.0) == [2, 4, 6])     // one marker per picture, on its top layer
        #expect(kept.filter(\.2).allSatisfy { $0.1 == 2 })
        selector.targetTemporal = 0
        #expect(Set(S.run(&selector, Self.stream(8 ..< 16)).map(\.0)) == [8, 12])
    }

    @Test func raisingTheTemporalLayerWaitsForATL0PictureWithoutAKeyFrame() {
        var selector = VP9LayerSelector(targetSpatial: 1)
        _ = S.run(&selector, Self.stream(0 ..< 1))
        selector.targetTemporal = 0
        #expect(Set(S.run(&selector, Self.stream(1 ..< 5)).map(\.0)) == [4])
        selector.targetTemporal = 7
        #expect(!selector.needsKeyFrame)
        // Pictures 5 (TL2), 6 (TL1), 7 (TL2) refer to pictures this subscriber did not get: dropped;
        // from picture 8 (TL0) every picture.
        let kept = S.run(&selector, Self.stream(5 ..< 12))
        #expect(Set(kept.map(\.0)) == [8, 9, 10, 11])
        #expect(selector.currentSpatial == 1)
    }

    @Test func aSwitchingUpPointRaisesAtOnce() {
        var selector = VP9LayerSelector(targetSpatial: 0)
        _ = S.run(&selector, S.stream(0 ..< 1))
        selector.targetTemporal = 0
        _ = S.run(&selector, S.stream(1 ..< 5))
        selector.targetTemporal = 7
        // The stream marks every TL1/TL2 frame as a switching-up point (U = 1): picture 5 (TL2) goes.
        #expect(S.run(&selector, S.stream(5 ..< 8)).map(\.0) == [5, 5, 6, 6, 7, 7])
    }
}
