import RTCNet

/// Builds the Prometheus text exposition format (version 0.0.4): `# HELP` and `# TYPE` once per
/// family, then its samples; histograms from a `LogHistogram` with fixed `le` bounds.
struct PrometheusText {
    private(set) var text = ""

    /// Starts a metric family.
    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample; label values are escaped.
    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Int) {
        sample(name, labels, Double(value))
    }

    mutating func sample(_ name: String, _ value: Double) { sample(name, [:], value) }

    mutating func sample(_ name: String, _ value: Int) { sample(name, [:], Double(value)) }

    /// A histogram family from `histogram`, whose samples are in units of 1/`unitsPerBound` of the
    /// `bounds` (µs for seconds: 1e6). A bucket counts the samples whose log-bucket lies wholly at
    /// or below its bound (within ~6 % of the exact edge).
    mutating func histogram(_ name: String, _ help: String, _ histogram: LogHistogram, bounds: [Double], unitsPerBound: Double) {
        family(name, "histogram", help)
        for bound in bounds {
            let limit = Int64(min(Double(Int64.max / 2), (bound * unitsPerBound).rounded(.down)))
            sample(name + "_bucket", ["le": Self.format(bound)], histogram.count(atMost: limit))
        }
        sample(name + "_bucket", ["le": "+Inf"], histogram.count)
        sample(name + "_sum", histogram.sum / unitsPerBound)
        sample(name + "_count", histogram.count)
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}

/// Something that adds its families to `/metrics` when it is rendered.
protocol MetricsSource: AnyObject, Sendable {
    func render(into text: inout PrometheusText)
}
