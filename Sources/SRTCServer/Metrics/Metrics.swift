import Foundation
import Synchronization

/// Prometheus counters and one latency histogram, rendered in the text exposition format.
/// Label sets are few (route × status, auth cause), so a locked dictionary is enough.
public final class Metrics: Sendable {
    /// Upper bounds of the latency histogram buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct State {
        var requests: [String: UInt64] = [:]          // "route\u{0}status"
        var authFailures: [String: UInt64] = [:]      // cause
        var bucketCounts = [UInt64](repeating: 0, count: Metrics.latencyBuckets.count)
        var latencyCount: UInt64 = 0
        var latencySum: Double = 0
        var gauges: [String: Double] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Counts one request of `route` (the route pattern, not the raw path) answered with `status`.
    public func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests["\(route)\u{0}\(status)", default: 0] += 1
            s.latencyCount += 1
            s.latencySum += seconds
            if let i = Self.latencyBuckets.firstIndex(where: { seconds <= $0 }) { s.bucketCounts[i] += 1 }
        }
    }

    /// Counts one refused signature or token, by cause (`APIErrorCode.name`).
    public func recordAuthFailure(cause: String) {
        state.withLock { $0.authFailures[cause, default: 0] += 1 }
    }

    /// Sets a gauge (channels, users, peers...).
    public func setGauge(_ name: String, _ value: Double) {
        state.withLock { $0.gauges[name] = value }
    }

    /// The count of requests of `route` with `status` (for tests).
    public func requestCount(route: String, status: Int) -> UInt64 {
        state.withLock { $0.requests["\(route)\u{0}\(status)"] ?? 0 }
    }

    /// The count of auth failures of `cause` (for tests).
    public func authFailureCount(cause: String) -> UInt64 {
        state.withLock { $0.authFailures[cause] ?? 0 }
    }

    /// The text exposition format (version 0.0.4).
    public func render() -> String {
        let s = state.withLock { $0 }
        var out = "# HELP srtc_http_requests_total HTTP requests by route and status.\n# TYPE srtc_http_requests_total counter\n"
        for (key, value) in s.requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            out += "srtc_http_requests_total{route=\"\(escape(parts[0]))\",status=\"\(parts[1])\"} \(value)\n"
        }
        out += "# HELP srtc_http_request_duration_seconds Time from request parsed to response ready.\n# TYPE srtc_http_request_duration_seconds histogram\n"
        var cumulative: UInt64 = 0
        for (i, bound) in Self.latencyBuckets.enumerated() {
            cumulative += s.bucketCounts[i]
            out += "srtc_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "srtc_http_request_duration_seconds_bucket{le=\"+Inf\"} \(s.latencyCount)\n"
        out += "srtc_http_request_duration_seconds_sum \(s.latencySum)\n"
        out += "srtc_http_request_duration_seconds_count \(s.latencyCount)\n"
        out += "# HELP srtc_auth_failures_total Refused signatures and tokens by cause.\n# TYPE srtc_auth_failures_total counter\n"
        for (cause, value) in s.authFailures.sorted(by: { $0.key < $1.key }) {
            out += "srtc_auth_failures_total{cause=\"\(escape(Substring(cause)))\"} \(value)\n"
        }
        for (name, value) in s.gauges.sorted(by: { $0.key < $1.key }) {
            out += "# TYPE \(name) gauge\n\(name) \(value)\n"
        }
        return out
    }

    private func escape(_ s: Substring) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
