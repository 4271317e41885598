import Testing
@testable import RTCNet

/// Log-linear histograms: exact below 32, within one bucket (1/16 of a
/// power of two) above, merged, and read as Prometheus `le` buckets.
struct LogHistogramTests {
    @Test func smallValuesAreExactAndPercentilesCountSamples() {
        var histogram = LogHistogram()
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
        #expect(LogHistogram.bucket(of: 1000) == LogHistogram.bucket(of: 992))
        #expect(LogHistogram.bucket(of: 1000) != LogHistogram.bucket(of: 991))
        #expect(LogHistogram.upperBound(of: LogHistogram.bucket(of: 1000)) == 1023)
        // Every bucket boundary is consistent with its upper bound.
        for value: Int64 in [31, 32, 33, 34, 63, 64, 65, 100_000, 1 << 30] {
            let bucket = LogHistogram.bucket(of: value)
            #expect(LogHistogram.upperBound(of: bucket) >= value)
            if bucket > 0 { #expect(LogHistogram.upperBound(of: bucket - 1) < value) }
        }
        var histogram = LogHistogram()
        histogram.record(1000)
        // Never above the largest sample, never below the true value.
        #expect(histogram.percentile(0.5) == 1000)
        histogram.record(1010)
        #expect(histogram.percentile(0.5) == 1010)
    }

    @Test func negativeDelaysCountAsZeroAndMergeAddsSamples() {
        var a = LogHistogram(), b = LogHistogram()
        a.record(-7)
        for _ in 0..<99 { b.record(2_000) }
        a.merge(b)
        #expect(a.count == 100)
        #expect(a.percentile(0.01) == 0)
        #expect(a.percentile(0.5) >= 2_000 && a.percentile(0.5) < 2_000 * 17 / 16)
        #expect(LogHistogram().percentile(0.5) == 0)
    }

    @Test func prometheusBucketsCountWholeBucketsAtOrBelowTheBound() {
        var histogram = LogHistogram()
        for value: Int64 in [10, 31, 500, 1000, 5000] { histogram.record(value) }
        #expect(histogram.count(atMost: 9) == 0)
        #expect(histogram.count(atMost: 31) == 2)
        // 500 lies in [496, 511]: counted at 511, not at 500.
        #expect(histogram.count(atMost: 500) == 2)
        #expect(histogram.count(atMost: 511) == 3)
        #expect(histogram.count(atMost: 1_000_000) == 5)
        #expect(histogram.sum == 6541)
        // Values past the last power of two all land in the last bucket.
        histogram.record(.max / 2)
        #expect(histogram.count(atMost: .max) == 6)
    }
}
