import RTCNet
import Testing
@testable import SRTCServer

/// The Prometheus text format of `/metrics`: families, escaped labels, histograms from log buckets.
struct MetricsTextTests {
    @Test func histogramsRenderCumulativeBucketsSumAndCount() {
        var samples = LogHistogram()
        for micros: Int64 in [200, 800, 3_000, 40_000] { samples.record(micros) }
        var text = PrometheusText()
        text.histogram("x_seconds", "Help.", samples, bounds: [0.001, 0.01], unitsPerBound: 1e6)
        #expect(text.text == """
            # HELP x_seconds Help.
            # TYPE x_seconds histogram
            x_seconds_bucket{le="0.001"} 2
            x_seconds_bucket{le="0.01"} 3
            x_seconds_bucket{le="+Inf"} 4
            x_seconds_sum 0.044
            x_seconds_count 4

            """)
    }

    @Test func labelValuesAreEscaped() {
        var text = PrometheusText()
        text.sample("y_total", ["route": "a\"b\\c\nd"], 3)
        text.sample("z", 0.25)
        #expect(text.text == "y_total{route=\"a\\\"b\\\\c\\nd\"} 3\nz 0.25\n")
    }
}
