import EgressWorker
import Testing

/// `H264ReorderDetector` on the timestamps containers give (docs/ingress.md, "B-frames that start mid-push").
@Suite struct H264ReorderDetectorTests {
    /// Feeds (pts, dts) pairs in milliseconds; returns the index of the first packet found reordering.
    static func firstReordering(_ times: [(Int64, Int64?)]) -> Int? {
        var detector = H264ReorderDetector()
        return times.firstIndex { detector.reorders(ptsUs: $0.0 * 1_000, dtsUs: $0.1.map { $0 * 1_000 }) }
    }

    @Test func picturesInOrderDoNotReorderWhateverTheirConstantDelay() {
        #expect(Self.firstReordering((0..<90).map { (Int64($0) * 33, Int64($0) * 33) }) == nil)
        // A constant composition offset (some encoders' FLV) is no reordering.
        #expect(Self.firstReordering((0..<90).map { (Int64($0) * 33 + 66, Int64($0) * 33) }) == nil)
        // No DTS at all (pts only), increasing.
        #expect(Self.firstReordering((0..<90).map { (Int64($0) * 33, nil) }) == nil)
    }

    /// FLV from x264 after `-bf 2` starts: decode order I P B B, the P-frame's composition time
    /// ahead of its DTS; caught at that P-frame, before any picture goes out of order.
    @Test func theFirstPictureSentAheadOfItsBFramesIsCaught() {
        var times: [(Int64, Int64?)] = (0..<30).map { (Int64($0) * 33, Int64($0) * 33) }
        times += [(30 * 33, 30 * 33), (33 * 33, 31 * 33), (31 * 33, 32 * 33), (32 * 33, 33 * 33)]
        #expect(Self.firstReordering(times) == 31)
    }

    /// Without DTS (a container that gives only presentation times), a step back is reordering.
    @Test func aPresentationTimeBelowAnEarlierOneIsReorderingAndALargeStepBackIsAReset() {
        let times: [(Int64, Int64?)] = [(0, nil), (33, nil), (100, nil), (66, nil)]
        #expect(Self.firstReordering(times) == 3)
        // Timestamps starting over (a new segment, a reconnect behind a relay): not reordering.
        let reset: [(Int64, Int64?)] = (0..<60).map { (Int64($0) * 33, Int64($0) * 33) } + (0..<60).map { (Int64($0) * 33, Int64($0) * 33) }
        #expect(Self.firstReordering(reset) == nil)
    }

    /// Times a pushed stream chose at the ends of `Int64` do not stop the worker: the detector's
    /// arithmetic saturates, and such jumps read as discontinuities, not reordering.
    @Test func extremeTimesDoNotTrapAndAreNotReordering() {
        var detector = H264ReorderDetector()
        let times: [(Int64?, Int64?)] = [(0, 0), (.max, .min), (.min, .max), (.max, .max), (.min, .min), (0, .min), (.max, nil), (.min, nil)]
        let found = times.map { detector.reorders(ptsUs: $0.0, dtsUs: $0.1) }
        #expect(found.filter { $0 }.isEmpty, "\(found)")
    }
}
