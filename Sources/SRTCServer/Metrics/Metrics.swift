import Foundation
import RTCNet
import Synchronization

/// Prometheus counters and one latency histogram, rendered in the text exposition format, plus
/// what registered sources add (the media plane, webhooks). Label sets are few (route × status,
/// auth cause), so a locked dictionary is enough.
public final class Metrics: Sendable {
    /// Upper bounds of the latency histogram buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct State {
        var requests: [String: UInt64] = [:]          // "route\u{0}status"
        var authFailures: [String: UInt64] = [:]      // cause
        /// Request durations, µs.
        var latency = LogHistogram()
        var gauges: [String: Double] = [:]
    }

    private let state = Mutex(State())
    private let sources = Mutex<[any MetricsSource]>([])

    public init() {}

    /// Counts one request of `route` (the route pattern, not the raw path) answered with `status`.
    public func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests["\(route)\u{0}\(status)", default: 0] += 1
            s.latency.record(Int64((seconds * 1e6).rounded()))
        }
    }

    /// Counts one refused signature or token, by cause (`APIErrorCode.name`).
    public func recordAuthFailure(cause: String) {
        state.withLock { $0.authFailures[cause, default: 0] += 1 }
    }

    /// Adds `source`'s families to every rendering (set up while the server is built).
    func register(_ source: any MetricsSource) {
        sources.withLock { $0.append(source) }
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
        var text = PrometheusText()
        text.family("srtc_http_requests_total", "counter", "HTTP requests by route and status.")
        for (key, value) in s.requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            text.sample("srtc_http_requests_total", ["route": String(parts[0]), "status": String(parts[1])], Int(value))
        }
        text.histogram("srtc_http_request_duration_seconds", "Time from request parsed to response ready.", s.latency,
                       bounds: Self.latencyBuckets, unitsPerBound: 1e6)
        text.family("srtc_auth_failures_total", "counter", "Refused signatures and tokens by cause.")
        for (cause, value) in s.authFailures.sorted(by: { $0.key < $1.key }) {
            text.sample("srtc_auth_failures_total", ["cause": cause], Int(value))
        }
        for (name, value) in s.gauges.sorted(by: { $0.key < $1.key }) {
            text.family(name, "gauge", name)
            text.sample(name, value)
        }
        for source in sources.withLock({ $0 }) { source.render(into: &text) }
        return text.text
    }
}
