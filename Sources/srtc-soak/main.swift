import Foundation
import SRTCTestSupport

/// `srtc-soak [--minutes N | --seconds N] [--participants N] [--seed N]`: the soak of issue #15
/// (see `SoakRunner`), run by `make soak` against the release `srtc-server` next to this binary.
/// Prints its figures each minute and at the end; exits 1 when the soak failed.
let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
if arguments.contains("--help") {
    print("usage: srtc-soak [--minutes N (default 30) | --seconds N] [--participants N (default 20)] [--seed N]")
    exit(0)
}
var configuration = SoakRunner.Configuration()
if let minutes = value("--minutes").flatMap(Double.init) { configuration.duration = .milliseconds(Int64(minutes * 60_000)) }
if let seconds = value("--seconds").flatMap(Double.init) { configuration.duration = .milliseconds(Int64(seconds * 1000)) }
if let n = value("--participants").flatMap(Int.init), n >= 2 { configuration.participants = n }
if let seed = value("--seed").flatMap(UInt64.init) { configuration.seed = seed }
// Short runs warm up and report proportionally (a tenth of the run, at most 2 min; about 12 lines).
configuration.warmUp = min(.seconds(120), configuration.duration / 10)
configuration.reportInterval = min(.seconds(60), max(.seconds(5), configuration.duration / 12))
if ProcessInfo.processInfo.environment["SRTC_BIN_DIR"] == nil {
    setenv("SRTC_BIN_DIR", URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path, 1)
}

do {
    let result = try await SoakRunner(configuration: configuration).run()
    exit(result.passed ? 0 : 1)
} catch {
    print("soak: could not run: \(error)")
    exit(2)
}
