// Live captions end to end (docs/captions.md, "Figures"): a real server with its `srtc-egress`
// caption worker (the release build next to this binary, as `make bench` makes it), speakers that
// are agents saying an eSpeak NG sentence at the same time, and one SDK listener timing each
// `caption` event. Latency is the event's arrival (Unix ms) minus its `end_ms`, the worker's Unix
// time of the last recognised sound: from the end of a spoken word to the caption showing it.
// The worker's CPU over the speaking window, divided by the speakers, is the cost of one speaker.
// Printed, never asserted.
import EgressServer
import Foundation
import SRTC
import SRTCAgents
import SRTCProtocol
import SRTCTestSupport
import Synchronization

/// Runs the caption benchmarks and prints their figures.
func runCaptionBenchmarks() {
    print("== captions (agents speak eSpeak NG sentences, the caption worker transcribes, an SDK listener times the events)")
    EgressWorkerBench.block("caption") { try await CaptionBench().run() }
}

private struct CaptionBench {
    static let sentence = "i would like a cup of coffee with milk please"
    /// Sentences each speaker says, with a pause between them (a turn ends after 0.8 s of silence).
    static let turns = 3
    static let pause = Duration.milliseconds(1_500)

    /// Every caption the listener got, with its arrival time.
    final class Listener: ChannelDelegate, Sendable {
        let received = Mutex<[(caption: Caption, arrivalMs: Int64)]>([])
        func channel(_ channel: Channel, didReceiveCaption caption: Caption) {
            let now = Int64(Date().timeIntervalSince1970 * 1_000)
            received.withLock { $0.append((caption, now)) }
        }
    }

    func run() async throws {
        try await EgressWorkerBench.withServer("srtc-bench-captions") { server, _ in
            for speakers in [1, 2, 4] { try await round(server, speakers: speakers) }
        }
    }

    private func round(_ server: TestServer, speakers count: Int) async throws {
        let channelName = "captions\(count)"
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench-captions"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
        let channel = try engine.createChannel()
        let listener = Listener()
        channel.delegates.add(delegate: listener)
        try await channel.join(url: server.httpBase, token: server.token(uid: "listener", channel: channelName))

        var speakers: [Agent] = []
        for i in 0..<count {
            var configuration = Agent.Configuration(textToSpeech: try ESpeakTextToSpeech())
            configuration.bargeIn = false
            configuration.mediaBindAddress = "127.0.0.1"
            configuration.logLevel = .off
            let agent = try Agent(configuration: configuration)
            try await agent.join(url: server.httpBase, token: server.token(uid: "speaker\(i)", channel: channelName))
            speakers.append(agent)
        }

        let before = Set(EgressWorkers.pids())
        let (status, json) = try await server.call("/server/v1/channel/captions/start", ["channel": channelName])
        guard status == 200 else { throw BenchFailure(description: "captions/start: \(status) \(json)") }
        let worker = try await newEgressWorker(besides: before)
        try await Task.sleep(for: .seconds(2))   // the worker joined and subscribed

        let cpuStart = CPUTime.process(pid: worker) ?? 0, start = ContinuousClock.now
        var spoken = Duration.zero
        for _ in 0..<Self.turns {
            let turnStart = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for agent in speakers { group.addTask { _ = try await agent.say(Self.sentence) } }
                try await group.waitForAll()
            }
            spoken += ContinuousClock.now - turnStart
            try await Task.sleep(for: Self.pause)
        }
        try await Task.sleep(for: .seconds(2))   // the last finals
        let window = ContinuousClock.now - start
        let cpu = ((CPUTime.process(pid: worker) ?? 0) - cpuStart) / 1e6
        _ = try await server.call("/server/v1/channel/captions/stop", ["channel": channelName])

        let received = listener.received.withLock { $0 }
        let partials = received.filter { !$0.caption.final }.map { Double($0.arrivalMs - $0.caption.endMs) }.sorted()
        let finals = received.filter { $0.caption.final }.map { Double($0.arrivalMs - $0.caption.endMs) }.sorted()
        let heard = (0..<count).map { i in
            received.filter { $0.caption.final && $0.caption.uid == "speaker\(i)" }.map(\.caption.text).joined(separator: " ")
        }
        let expected = Array(repeating: Self.sentence, count: Self.turns).joined(separator: " ")
        let words = heard.map { WordAlignment.fractionInOrder(expected: expected, heard: $0) }
        let windowSeconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        let spokenSeconds = Double(spoken.components.seconds) + Double(spoken.components.attoseconds) / 1e18
        print("  \(count) speaker\(count == 1 ? "" : "s") at once, \(Self.turns) sentences each:"
              + " partial \(describe(partials)), final \(describe(finals)) after the last recognised sound;"
              + " worker \(format(cpu / windowSeconds * 100, decimals: 0)) % of a core over \(format(windowSeconds, decimals: 1)) s"
              + " (\(format(cpu / windowSeconds * 100 / Double(count), decimals: 0)) % per speaker; speech \(format(spokenSeconds / windowSeconds * 100, decimals: 0)) % of the window);"
              + " words in order \(words.map { "\(Int($0 * 100)) %" }.joined(separator: ", "))")

        for agent in speakers { await agent.leave() }
        await channel.leave()
        await engine.destroy()
    }

    /// "median 412 ms, p90 655 ms (n = 21)", or "none".
    private func describe(_ sorted: [Double]) -> String {
        guard !sorted.isEmpty else { return "none" }
        let median = sorted[sorted.count / 2], p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        return "median \(Int(median)) ms, p90 \(Int(p90)) ms (n = \(sorted.count))"
    }
}
