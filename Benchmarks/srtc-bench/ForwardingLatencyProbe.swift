// Our server's own forwarding delay over a window (a packet's arrival in the SFU, decrypted, to the
// kernel taking each copy: the return of the `sendmmsg` that sent it), from the cumulative
// `srtc_media_forwarding_latency_seconds` histogram on its `/metrics` (docs/server-api.md): the
// buckets read before and after the window are subtracted. The latency target is on this
// figure; the table's e2e columns also hold the load generator's own scheduling on shared cores.
import Foundation
import RTCNet

struct ForwardingLatencyProbe {
    static let family = "srtc_media_forwarding_latency_seconds_bucket"
    static let forwardedFamily = "srtc_sfu_worker_forwarded_packets_total"
    /// Cumulative counts by upper bound, seconds (`+Inf` as infinity).
    var buckets: [(bound: Double, count: Double)] = []
    /// Packets the server forwarded so far, every worker's together (published every second);
    /// nil when the scrape failed or held no such line.
    var forwarded: Double?

    /// Reads the histogram from `metricsURL`; empty when the server has none yet.
    static func read(_ metricsURL: String) async -> ForwardingLatencyProbe {
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(2), keepAlive: false))
        guard let response = try? await client.get(metricsURL), response.status == 200 else { return ForwardingLatencyProbe() }
        var probe = ForwardingLatencyProbe()
        for line in String(decoding: response.body, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix(forwardedFamily + "{") {
                // Only from lines read: a body cut short (a starved server) leaves it nil, not 0.
                if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { probe.forwarded = (probe.forwarded ?? 0) + value }
                continue
            }
            guard line.hasPrefix(family + "{") else { continue }
            // name{le="0.001"} 123
            guard let open = line.range(of: "le=\""), let close = line[open.upperBound...].firstIndex(of: "\""),
                  let count = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            let bound = line[open.upperBound ..< close]
            probe.buckets.append((bound == "+Inf" ? .infinity : Double(bound) ?? .infinity, count))
        }
        return probe
    }

    /// The smallest bucket bound under which `quantile` of the packets of the window fell, ms
    /// (a bound of the histogram, not an interpolation); nil without samples.
    func quantile(_ quantile: Double, since earlier: ForwardingLatencyProbe) -> Double? {
        let window = buckets.map { bucket in
            (bucket.bound, bucket.count - (earlier.buckets.first { $0.bound == bucket.bound }?.count ?? 0))
        }
        guard let total = window.last?.1, total > 0 else { return nil }
        return window.first { $0.1 >= quantile * total }.map { $0.0 * 1000 }
    }
}
