import Foundation
import SRTC
import SRTCAgents

/// `srtc agent echo|captions`: the example agents of SRTCAgents (docs/agents.md). Each is a few
/// lines over `Agent`; read `AgentExamples` for the loop itself.
enum AgentCommand {
    static let help = """
    usage: srtc agent echo|captions --url URL (--token TOKEN | --channel C --uid U [--app-id ID --app-key KEY])
                      [--end-of-turn MS] [--voice en-us+f2] [--wpm 140] [--model DIR] [--duration SECONDS] [--verbose]

    Joins the channel as an agent (its own uid) and hears every participant's audio:
      echo       repeats what each participant said, as synthesized speech (eSpeak NG) on its
                 microphone track, once their turn ends; someone speaking cuts it short (barge-in)
      captions   prints each participant's speech as text (PocketSphinx) and sends every caption to
                 everyone as a data message on topic "caption": {"uid","text","final","start_ms","end_ms"}
    --end-of-turn MS   silence that ends a speaker's turn (800)
    --voice, --wpm     eSpeak NG's voice and speed (echo)
    --model DIR        the PocketSphinx model directory (/usr/share/pocketsphinx/model/en-us)
    Runs for --duration seconds, or until interrupted (Ctrl-C), then leaves.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "verbose"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["url", "token", "channel", "uid", "app-id", "app-key", "end-of-turn", "voice", "wpm", "model",
                                      "duration", "verbose"])
        guard let mode = o.positional.first, ["echo", "captions"].contains(mode) else { throw .usage(help) }
        let url = o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880"
        let token = try await JoinCommand.obtainToken(o, url: url, environment: environment)

        var configuration: Agent.Configuration
        do {
            configuration = Agent.Configuration(speechToText: try PocketSphinxSpeechToText(modelDirectory: o["model"] ?? PocketSphinxSpeechToText.debianModelDirectory))
            if mode == "echo" { configuration.textToSpeech = try ESpeakTextToSpeech(voice: o["voice"] ?? "en-us", wordsPerMinute: Int(o["wpm"] ?? "") ?? 160) }
        } catch {
            throw .failed("\(error)")
        }
        if let ms = o["end-of-turn"].flatMap(Int.init) { configuration.voiceActivity.endOfTurnSilenceMs = max(ms, configuration.voiceActivity.segmentHangoverMs) }
        let verbose = o.flags.contains("verbose")
        let agent: Agent
        do {
            agent = try Agent(configuration: configuration)
            try await agent.join(url: url, token: token)
        } catch {
            throw .failed("join failed: \(error)")
        }
        JoinOutput.line("agent \(agent.uid ?? "?") listening (\(mode))")

        let loop = Task {
            if mode == "echo" {
                await AgentExamples.echo(agent, onEvent: { show(event: $0, verbose: verbose) }, onSpoken: { outcome in
                    JoinOutput.line(outcome.completed ? "said: \(outcome.text)"
                                                      : "cut by \(outcome.interruptedBy ?? "?") after \(outcome.playedMs) ms: \(outcome.spokenText)")
                })
            } else {
                await AgentExamples.captions(agent, onEvent: { show(event: $0, verbose: verbose) })
            }
        }
        await JoinCommand.runUntilDone(duration: o["duration"].flatMap(Double.init), statsInterval: 0.5, tick: {})
        await agent.leave()
        await loop.value
        JoinOutput.line("left")
    }

    private static func show(event: AgentEvent, verbose: Bool) {
        switch event {
        case .transcript(let uid, let t) where t.final:
            JoinOutput.line("[\(t.startMs)–\(t.endMs) ms] \(uid): \(t.text)")
        case .transcript(let uid, let t) where verbose:
            JoinOutput.line("  … \(uid): \(t.text)")
        case .participantJoined(let uid): JoinOutput.line("\(uid) is heard")
        case .participantLeft(let uid): JoinOutput.line("\(uid) left")
        case .error(let uid, let error): JoinOutput.line("error\(uid.map { " (\($0))" } ?? ""): \(error)")
        case .speechStarted(let uid, let at) where verbose: JoinOutput.line("  \(uid) speaks (\(at) ms)")
        case .turnEnded(let uid, _) where verbose: JoinOutput.line("  \(uid)'s turn ended")
        default: break
        }
    }
}
