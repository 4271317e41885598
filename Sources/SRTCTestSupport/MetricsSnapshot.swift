import RTCNet

/// A server's `/metrics` page read once: each sample by its series as printed (`name` or
/// `name{label="value",…}`), for tests that check what the server counted.
public struct MetricsSnapshot: Sendable {
    public let samples: [String: Double]

    /// Parses the Prometheus text format's sample lines (comments skipped).
    public init(text: String) {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        self.samples = samples
    }

    /// Reads `baseURL/metrics`.
    public static func read(_ baseURL: String) async throws -> MetricsSnapshot {
        MetricsSnapshot(text: String(decoding: try await HTTPClient().get(baseURL + "/metrics").body, as: UTF8.self))
    }

    public subscript(_ series: String) -> Double? { samples[series] }

    /// A per-worker family (`name{worker="i"}`), by worker index, up to the first index missing.
    public func perWorker(_ name: String) -> [Double] {
        var values: [Double] = []
        while let value = samples["\(name){worker=\"\(values.count)\"}"] { values.append(value) }
        return values
    }
}

extension TestServer {
    /// The server's `/metrics` now.
    public func metrics() async throws -> MetricsSnapshot { try await MetricsSnapshot.read(httpBase) }
}
