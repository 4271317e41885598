import Foundation
import SRTCTestSupport

/// `srtc-lab-relay --server ADDRESS --ports P1,P2,… [--seed N]`: the network lab's userspace link
/// (`LabRelay`, docs/network.md "The lab"), run in the server's namespace by the lab's helpers
/// (`NetworkLab.addRelay`, Python `ClientServerLab.start_relay`), which redirect the clients'
/// datagrams for those ports to it. Prints `relay P1=R1 P2=R2` (each server port and the port the
/// relay listens on for it), then reads commands, one a line, and answers each with one line:
///
/// - `down SHAPE` / `up SHAPE`: shapes what the server sends the clients / what they send it;
///   `SHAPE` is `none` or any of `loss=0.05 burst=10/100 fade=80/800 delay=50 jitter=10 rate=300000 queue=200`
///   (random loss share; runs of 10 lost in every 100 datagrams; all lost for 80 ms in every
///   800 ms, the same moments for every flow; ms of fixed delay; ms of random
///   delay, which reorders; bits per second; ms of queue before the bottleneck). Answer: `ok`.
/// - `trace FILE` / `trace off`: writes a line per datagram sent toward the clients, kept or
///   dropped, with its RTP header's fields (`LabRelay.traceDownlink`). Answer: `ok`.
/// - `stats`: the counters since the last shape, as JSON
///   `{"downlink":{"offered":…,"randomlyLost":…,"burstLost":…,"queueDropped":…},"uplink":{…},"flows":N}`.
///
/// It exits when its standard input ends.
let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
guard let server = value("--server"), let ports = value("--ports")?.split(separator: ",").compactMap({ UInt16($0) }), !ports.isEmpty else {
    print("usage: srtc-lab-relay --server ADDRESS --ports P1,P2,… [--seed N]")
    exit(2)
}
let seed = value("--seed").flatMap(UInt64.init) ?? 26

/// A `SHAPE` of the command line above, or nil for `none`; throws a message for a word it does not know.
func parseShape(_ words: ArraySlice<Substring>) throws -> LinkShaper.Shape? {
    if words.isEmpty || words == ["none"] { return nil }
    var shape = LinkShaper.Shape(queueMilliseconds: 200)
    for word in words {
        let parts = word.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { throw RelayCommandError(text: "expected key=value: \(word)") }
        let number = Double(parts[1])
        switch (parts[0], number) {
        case ("loss", let n?): shape.lossRate = n
        case ("delay", let n?): shape.delayMilliseconds = n
        case ("jitter", let n?): shape.jitterMilliseconds = n
        case ("rate", let n?): shape.bitrate = n > 0 ? Int(n) : nil
        case ("queue", let n?): shape.queueMilliseconds = n
        case ("fade", _):
            let run = parts[1].split(separator: "/").compactMap { Double($0) }
            guard run.count == 2, run[1] > 0 else { throw RelayCommandError(text: "fade=MS/PERIOD_MS: \(word)") }
            shape.fadeMilliseconds = run[0]
            shape.fadePeriodMilliseconds = run[1]
        case ("burst", _):
            let run = parts[1].split(separator: "/").compactMap { Int($0) }
            guard run.count == 2, run[1] > 0 else { throw RelayCommandError(text: "burst=LENGTH/PERIOD: \(word)") }
            shape.burstLength = run[0]
            shape.burstPeriod = run[1]
        default: throw RelayCommandError(text: "unknown: \(word)")
        }
    }
    return shape
}

struct RelayCommandError: Error { let text: String }

/// One line to the standard output, at once (the caller waits for it; print's buffer would hold it).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let relay: LabRelay
do {
    relay = try LabRelay(server: server, serverPorts: ports)
} catch {
    say("error: \(error)")
    exit(1)
}
say("relay " + ports.map { "\($0)=\(relay.ports[$0]!)" }.joined(separator: " "))
var downlink: LinkShaper.Shape?
var uplink: LinkShaper.Shape?
while let line = readLine() {
    let words = line.split(separator: " ")
    guard let command = words.first else { continue }
    do {
        switch command {
        case "down", "up":
            let shape = try parseShape(words.dropFirst())
            if command == "down" { downlink = shape } else { uplink = shape }
            relay.shape(downlink: downlink, uplink: uplink, seed: seed)
            say("ok")
        case "trace":
            guard words.count == 2 else { throw RelayCommandError(text: "trace FILE|off") }
            relay.traceDownlink(to: words[1] == "off" ? nil : String(words[1]))
            say("ok")
        case "stats":
            let (down, up, flows) = relay.counters()
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let d = String(decoding: try encoder.encode(down), as: UTF8.self), u = String(decoding: try encoder.encode(up), as: UTF8.self)
            say("{\"downlink\":\(d),\"uplink\":\(u),\"flows\":\(flows)}")
        default:
            say("error: unknown command \(command)")
        }
    } catch {
        say("error: \((error as? RelayCommandError)?.text ?? String(describing: error))")
    }
}
relay.stop()
