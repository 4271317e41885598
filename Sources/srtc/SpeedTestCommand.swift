import Foundation
import SRTC
import Synchronization

/// `srtc speedtest`: measures the network path to a server's media port with the SDK's speed
/// test and prints progress and the result.
enum SpeedTestCommand {
    static let help = """
    usage: srtc speedtest [--url URL] [--host HOST] [--port 7881] (--token TOKEN | --uid U [--app-id ID --app-key KEY])
                          [--duration 10] [--uplink-bitrate 2000000] [--downlink-bitrate 2000000] [--link-id ID] [--json]

    Measures uplink and downlink bandwidth, round-trip time, jitter and loss to the server's UDP
    media port (--host, default the host of --url; --port, default 7881) and grades the path
    (excellent, good, poor, bad, very_bad, down). The token is a speed-test token
    (POST /server/v1/speedtest/grant) or a channel token; with --uid instead, one is granted on the
    spot from the app's credentials (--app-id/--app-key or $SRTC_APP_ID/$SRTC_APP_KEY).

    Load is sent at the given bitrates (bits/s): ask for more than your app needs; the measured
    bandwidth never exceeds them. --duration is 2 to 30 s. --json prints the result as one JSON
    object. Exits 1 when the test cannot run (no answer, token refused).
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "json"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["url", "host", "port", "token", "uid", "app-id", "app-key", "duration", "uplink-bitrate",
                                      "downlink-bitrate", "link-id", "json"])
        let url = o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880"
        guard let host = o["host"] ?? URL(string: url)?.host else { throw .usage("cannot tell the host from --url \(url); give --host") }
        guard let port = UInt16(o["port"] ?? "7881") else { throw .usage("--port must be a UDP port") }
        var params = SpeedTestParams(linkId: o["link-id"] ?? "", serverAddress: host, serverPort: port, token: "")
        if let d = o["duration"] {
            guard let v = Double(d) else { throw .usage("--duration must be a number of seconds") }
            params.duration = v
        }
        for (flag, keyPath) in [("uplink-bitrate", \SpeedTestParams.expectedUplinkBitrate), ("downlink-bitrate", \.expectedDownlinkBitrate)] {
            guard let text = o[flag] else { continue }
            guard let v = Int(text), v > 0 else { throw .usage("--\(flag) must be a positive number of bits/s") }
            params[keyPath: keyPath] = v
        }
        if let token = o["token"] {
            params.token = token
        } else {
            let client = SignedClient(baseURL: url, appId: try o.require("app-id", env: "SRTC_APP_ID", environment: environment),
                                      appKey: try o.require("app-key", env: "SRTC_APP_KEY", environment: environment))
            params.token = try await client.grantToken(path: "/server/v1/speedtest/grant", body: ["uid": try o.require("uid", environment: environment)])
        }
        let engine = try CLIError.sdk { () throws(SRTCError) in try SRTCEngine(configuration: .init(delegateQueue: DispatchQueue(label: "srtc.speedtest.events"), logLevel: .warning)) }
        let observer = Observer(json: o.flags.contains("json"))
        engine.delegates.add(delegate: observer)
        do { try engine.startSpeedTest(params) } catch { throw .failed("\(error)") }
        let outcome = await observer.outcome()
        await engine.destroy()
        if case .failure(let error) = outcome { throw .failed("speed test failed: \(error)") }
    }

    /// Prints events as they come and hands over the end.
    final class Observer: SRTCEngineDelegate, Sendable {
        let json: Bool
        /// The last progress printed (phase, tenth of the test).
        private let printed = Mutex<(SpeedTestProgress.Phase?, Int)>((nil, -1))
        private let end = Mutex<(result: Result<SpeedTestResult, SRTCError>?, waiter: CheckedContinuation<Result<SpeedTestResult, SRTCError>, Never>?)>((nil, nil))

        init(json: Bool) { self.json = json }

        func outcome() async -> Result<SpeedTestResult, SRTCError> {
            await withCheckedContinuation { continuation in
                let ready = end.withLock { s -> Result<SpeedTestResult, SRTCError>? in
                    if s.result == nil { s.waiter = continuation }
                    return s.result
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        private func finish(_ result: Result<SpeedTestResult, SRTCError>) {
            let waiter = end.withLock { s -> CheckedContinuation<Result<SpeedTestResult, SRTCError>, Never>? in
                s.result = result
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: result)
        }

        func engine(_ engine: SRTCEngine, speedTestDidProgress progress: SpeedTestProgress) {
            let tenth = Int(progress.fraction * 10)
            let changed = printed.withLock { last -> Bool in
                guard last.0 != progress.phase || last.1 != tenth else { return false }
                last = (progress.phase, tenth)
                return true
            }
            guard !json, changed else { return }
            JoinOutput.line(String(format: "%3.0f%%  %@%@", progress.fraction * 100, progress.phase.rawValue,
                                   progress.rttMs > 0 ? String(format: "  rtt %.1f ms", progress.rttMs) : ""))
        }

        func engine(_ engine: SRTCEngine, speedTestDidFinish result: SpeedTestResult) {
            JoinOutput.line(json ? Self.json(result) : Self.text(result))
            finish(.success(result))
        }

        func engine(_ engine: SRTCEngine, speedTestDidFail error: SRTCError, linkId: String) { finish(.failure(error)) }

        static func text(_ r: SpeedTestResult) -> String {
            func link(_ name: String, _ l: SpeedTestLinkReport) -> String {
                String(format: "%@ %8.3f Mbps  loss %5.2f %%  jitter %6.2f ms", name, Double(l.bandwidth) / 1e6, l.packetLossRate * 100, l.jitterMs)
            }
            return [link("uplink  ", r.uplink), link("downlink", r.downlink), String(format: "rtt      %8.2f ms", r.rttMs),
                    "quality  \(name(r.quality))"].joined(separator: "\n")
        }

        static func json(_ r: SpeedTestResult) -> String {
            func link(_ l: SpeedTestLinkReport) -> [String: Any] {
                ["bandwidth": l.bandwidth, "packet_loss_rate": l.packetLossRate, "jitter_ms": l.jitterMs]
            }
            let object: [String: Any] = ["link_id": r.linkId, "rtt_ms": r.rttMs, "uplink": link(r.uplink), "downlink": link(r.downlink),
                                         "quality": name(r.quality)]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }

        static func name(_ q: SpeedTestQuality) -> String {
            switch q {
            case .excellent: "excellent"
            case .good: "good"
            case .poor: "poor"
            case .bad: "bad"
            case .veryBad: "very_bad"
            case .down: "down"
            }
        }
    }
}
