import Testing
@testable import SRTCLoad

/// The load generator's delay distribution: exact below 32 µs, within one bucket (1/16 of a
/// power of two) above, merged across subscribers.
struct DelayHistogramTests {
    @Test func smallValuesAreExactAndPercentilesCountSamples() {
        var histogram = DelayHistogram()
        for value in [5, 1, 3, 2, 4] as [Int64] { histogram.record(value) }
        #expect(histogram.count == 5)
        #expect(histogram.percentile(0.5) == 3)
        #expect(histogram.percentile(1) == 5)
        #expect(histogram.percentile(0.01) == 1)
        #expect(histogram.mean == 3)
        #expect(histogram.maximum == 5)
    }

    @Test func largeValuesLandInTheirPowerOfTwoSixteenth() {
        // 1000 µs lies in [512, 1024), whose sixteenths are 32 µs wide: bucket [992, 1023].
        #expect(DelayHistogram.bucket(of: 1000) == DelayHistogram.bucket(of: 992))
        #expect(DelayHistogram.bucket(of: 1000) != DelayHistogram.bucket(of: 991))
        #expect(DelayHistogram.upperBound(of: DelayHistogram.bucket(of: 1000)) == 1023)
        // Every bucket boundary is consistent with its upper bound.
        for value: Int64 in [31, 32, 33, 34, 63, 64, 65, 100_000, 1 << 30] {
            let bucket = DelayHistogram.bucket(of: value)
            #expect(DelayHistogram.upperBound(of: bucket) >= value)
            if bucket > 0 { #expect(DelayHistogram.upperBound(of: bucket - 1) < value) }
        }
        var histogram = DelayHistogram()
        histogram.record(1000)
        // Never above the largest sample, never below the true value.
        #expect(histogram.percentile(0.5) == 1000)
        histogram.record(1010)
        #expect(histogram.percentile(0.5) == 1010)
    }

    @Test func negativeDelaysCountAsZeroAndMergeAddsSamples() {
        var a = DelayHistogram(), b = DelayHistogram()
        a.record(-7)
        for _ in 0..<99 { b.record(2_000) }
        a.merge(b)
        #expect(a.count == 100)
        #expect(a.percentile(0.01) == 0)
        #expect(a.percentile(0.5) >= 2_000 && a.percentile(0.5) < 2_000 * 17 / 16)
        #expect(DelayHistogram().percentile(0.5) == 0)
    }
}
