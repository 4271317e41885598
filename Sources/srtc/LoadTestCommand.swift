import Foundation
import SRTCLoad

/// `srtc load-test`: publishers sending pre-encoded VP8 and Opus, subscribers counting what
/// arrives (no decoding), against our server or Janus VideoRoom on this machine.
enum LoadTestCommand {
    static let help = """
    usage: srtc load-test [--target srtc|janus] [--url URL] [--app-id ID --app-key KEY] [--janus-url URL]
                          [--rooms R] [--publishers P] [--subscribers S] [--duration SECONDS]
                          [--simulcast] [--layer camera_big|camera_small] [--no-audio] [--no-video]
                          [--join-rate N] [--json FILE] [--quiet]

    Runs R rooms, each with P participants who publish a camera and a microphone and subscribe to
    each other, and S who subscribe to every publisher of their room; measures D seconds once
    everyone receives. Publishers send pre-encoded media (VP8 640×360 at 30 fps and 500 kbit/s,
    with --simulcast also 160×90 at 15 fps and 100 kbit/s; Opus at 32 kbit/s; a key frame every
    2 s), each packet stamped with its send time (abs-capture-time, or RTP padding for servers
    that drop unknown header extensions); subscribers decode nothing and count packets, loss,
    NACKs, PLIs, first-packet time and end-to-end delay.

      --target srtc    our server at --url (default $SRTC_URL or http://127.0.0.1:7880); tokens are
                       signed here with --app-id/--app-key (or $SRTC_APP_ID/$SRTC_APP_KEY)
      --target janus   Janus VideoRoom's HTTP API at --janus-url (default http://127.0.0.1:8088/janus)
      --join-rate N    participants joining per second (default 20, the server's default limit per channel)
      --json FILE      write the summary there ('-': standard output, the default)
      --quiet          no progress line every second

    Loopback only: the URL must name this machine and media goes only to its own addresses.
    Bounds: R ≤ 200, P ≤ 16, S ≤ 500 per room, R × (P + S) ≤ 600, D ≤ 3600 s.
    Exit status 1 when setup failed for anyone or nothing was delivered.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "simulcast", "no-audio", "no-video", "quiet"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["target", "url", "app-id", "app-key", "janus-url", "rooms", "publishers", "subscribers",
                                      "duration", "simulcast", "layer", "no-audio", "no-video", "join-rate", "json", "quiet"])
        let scenario = try scenario(o)
        let target: any LoadTarget
        switch o["target"] ?? "srtc" {
        case "srtc":
            target = SRTCLoadTarget(baseURL: o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880",
                                    appId: try o.require("app-id", env: "SRTC_APP_ID", environment: environment),
                                    appKey: try o.require("app-key", env: "SRTC_APP_KEY", environment: environment))
        case "janus":
            target = JanusLoadTarget(baseURL: o["janus-url"] ?? "http://127.0.0.1:8088/janus")
        case let other:
            throw .usage("--target must be srtc or janus, not '\(other)'")
        }
        let report = try await execute(scenario, on: target, quiet: o.flags.contains("quiet"))
        let json = report.json()
        switch o["json"] ?? "-" {
        case "-": JoinOutput.line(json)
        case let path:
            do { try json.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                throw .failed("cannot write \(path): \(error)")
            }
        }
        for failure in report.failures { FileHandle.standardError.write(Data("srtc: \(failure)\n".utf8)) }
        if !report.failures.isEmpty || report.packetsReceived == 0 { throw .failed("load test finished with failures") }
    }

    private static func execute(_ scenario: LoadScenario, on target: any LoadTarget, quiet: Bool) async throws(CLIError) -> LoadReport {
        let print: @Sendable (String) -> Void = { line in JoinOutput.line(line) }
        let silent: @Sendable (String) -> Void = { _ in }
        do {
            let load = try await LoadRun(scenario: scenario, target: target)
            return try await load.run(progress: quiet ? nil : print, log: quiet ? silent : print)
        } catch {
            throw .failed("load test failed: \(error)")
        }
    }

    static func scenario(_ o: Options) throws(CLIError) -> LoadScenario {
        func integer(_ name: String, _ fallback: Int) throws(CLIError) -> Int {
            guard let text = o[name] else { return fallback }
            guard let value = Int(text) else { throw .usage("--\(name) must be a whole number") }
            return value
        }
        func number(_ name: String, _ fallback: Double) throws(CLIError) -> Double {
            guard let text = o[name] else { return fallback }
            guard let value = Double(text), value.isFinite else { throw .usage("--\(name) must be a number") }
            return value
        }
        let scenario = LoadScenario(
            rooms: try integer("rooms", 1), publishers: try integer("publishers", 1), subscribers: try integer("subscribers", 4),
            duration: try number("duration", 10), simulcast: o.flags.contains("simulcast"), layer: o["layer"],
            audio: !o.flags.contains("no-audio"), video: !o.flags.contains("no-video"), joinRate: try number("join-rate", 20))
        do { try scenario.validate() } catch { throw .usage(error.description) }
        return scenario
    }
}
