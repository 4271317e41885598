// Agents' engines (docs/agents.md): the real-time factor (CPU seconds per second of audio, on
// this thread) of eSpeak NG synthesizing a sentence and of PocketSphinx recognising it fed 20 ms
// at a time as an agent feeds it, plus the time to load one recognizer (each speaker loads one).
// Below 1 keeps up with one speaker; 1 / RTF is about how many speakers one core keeps up with.
import SRTCAgents

func runAgentBenchmarks() {
    let sentence = "i would like a cup of coffee with milk please"
    print("Agents (speech engines; CPU time of this thread, best of \(AgentBench.rounds) rounds)")
    do {
        let tts = try ESpeakTextToSpeech()
        var speech = try tts.synthesize(sentence)
        let synthesis = AgentBench.best { speech = try tts.synthesize(sentence) }
        let seconds = Double(speech.durationMs) / 1_000
        print("  eSpeak NG synthesis      \(format(seconds, decimals: 2)) s of speech in \(format(synthesis / 1_000, decimals: 1)) ms  RTF \(format(synthesis / 1e6 / seconds, decimals: 3))")

        var pcm: [Int16] = []
        let converter = PCMConverter(outputRate: 16_000)
        try speech.samples.withUnsafeBufferPointer { try converter.convert(int16: $0, rate: speech.sampleRate) { pcm += $0 } }
        let stt = try PocketSphinxSpeechToText()
        var recognizer: (any SpeechRecognizer)?
        let load = AgentBench.best(rounds: 2) { recognizer = try stt.makeRecognizer() }
        print("  PocketSphinx model load  \(format(load / 1_000, decimals: 0)) ms per recognizer (one per speaker)")
        var heard = ""
        let recognition = AgentBench.best {
            heard = try recognizer?.transcribe(pcm).text ?? ""
        }
        let audio = Double(pcm.count) / 16_000
        print("  PocketSphinx recognition \(format(audio, decimals: 2)) s of speech in \(format(recognition / 1_000, decimals: 1)) ms  RTF \(format(recognition / 1e6 / audio, decimals: 3))"
              + "  (\(Int(WordAlignment.fractionInOrder(expected: sentence, heard: heard) * 100)) % of the words: \"\(heard)\")")
    } catch {
        print("  skipped: \(error)")
    }
}

enum AgentBench {
    static let rounds = 3

    /// The least thread CPU time (µs) of `rounds` runs of `body`.
    static func best(rounds: Int = AgentBench.rounds, _ body: () throws -> Void) -> Double {
        (0..<rounds).map { _ in
            let start = CPUTime.thread()
            try? body()
            return CPUTime.thread() - start
        }.min() ?? 0
    }
}
