import CEspeakNG
import Foundation
import Synchronization

/// Text to speech with eSpeak NG (Debian's `libespeak-ng-dev`): formant synthesis, robotic but
/// intelligible, 22 050 Hz mono, entirely local and faster than real time.
///
/// eSpeak NG keeps one synthesizer per process, so every instance shares it and syntheses run
/// one at a time.
public struct ESpeakTextToSpeech: TextToSpeech {
    public let name = "espeak-ng"
    /// The eSpeak voice and variant ("en-us+f2", "en-us", "fr", …). The default, US English
    /// with the `f2` variant at 140 words per minute, is the one PocketSphinx understands best
    /// here (measured: docs/agents.md).
    public let voice: String
    /// Words per minute (80–450; eSpeak's default is 175).
    public let wordsPerMinute: Int

    /// - Throws: `AgentError.engineUnavailable` when eSpeak NG cannot start or has no such voice.
    public init(voice: String = "en-us+f2", wordsPerMinute: Int = 140) throws(AgentError) {
        self.voice = voice
        self.wordsPerMinute = min(450, max(80, wordsPerMinute))
        _ = try ESpeakLibrary.sampleRate()
    }

    public func synthesize(_ text: String) throws -> SynthesizedSpeech {
        try ESpeakLibrary.synthesize(text, voice: voice, wordsPerMinute: wordsPerMinute)
    }
}

/// The process's one eSpeak NG synthesizer, initialised once, used under a lock.
enum ESpeakLibrary {
    private static let lock = Mutex<Int?>(nil)

    /// Initialises eSpeak NG on first use; its output rate.
    static func sampleRate() throws(AgentError) -> Int {
        try lock.withLock { (rate: inout Int?) throws(AgentError) -> Int in try initialised(&rate) }
    }

    static func synthesize(_ text: String, voice: String, wordsPerMinute: Int) throws(AgentError) -> SynthesizedSpeech {
        try lock.withLock { (rate: inout Int?) throws(AgentError) -> SynthesizedSpeech in
            let sampleRate = try initialised(&rate)
            guard espeak_SetVoiceByName(voice) == EE_OK else { throw .engineUnavailable("espeak-ng: no voice \(voice)") }
            espeak_SetParameter(espeakRATE, Int32(wordsPerMinute), 0)
            let sink = SynthesisSink(text: text)
            let context = Unmanaged.passRetained(sink)
            defer { context.release() }
            let bytes = Array(text.utf8) + [0]
            let status = bytes.withUnsafeBufferPointer { buffer in
                espeak_Synth(buffer.baseAddress, buffer.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context.toOpaque())
            }
            guard status == EE_OK, espeak_Synchronize() == EE_OK else { throw .engineFailed("espeak-ng: espeak_Synth returned \(status.rawValue)") }
            return SynthesizedSpeech(samples: sink.samples, sampleRate: sampleRate, words: sink.words)
        }
    }

    private static func initialised(_ rate: inout Int?) throws(AgentError) -> Int {
        if let rate { return rate }
        // Synchronous: espeak_Synth returns when every sample went through the callback.
        let result = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard result > 0 else { throw .engineUnavailable("espeak-ng: espeak_Initialize failed (espeak-ng-data installed?)") }
        espeak_SetSynthCallback(synthCallback)
        rate = Int(result)
        return Int(result)
    }
}

/// Collects one synthesis's samples and word events (the callback's `user_data`).
private final class SynthesisSink {
    let scalars: [Unicode.Scalar]
    var samples: [Int16] = []
    var words: [SpokenWord] = []

    init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    func addWord(textPosition: Int, length: Int, audioMs: Int) {
        // eSpeak counts characters from 1.
        let start = max(0, min(scalars.count, textPosition - 1))
        let end = max(start, min(scalars.count, start + length))
        var word = String(String.UnicodeScalarView(scalars[start..<end]))
        word = word.trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
        if !word.isEmpty { words.append(SpokenWord(text: word, startMs: audioMs)) }
    }
}

/// eSpeak NG's synthesis callback: samples, then an event list ended by LIST_TERMINATED.
private func synthCallback(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard var event = events, let context = event.pointee.user_data else { return 0 }
    let sink = Unmanaged<SynthesisSink>.fromOpaque(context).takeUnretainedValue()
    if let wav, count > 0 { sink.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count))) }
    while event.pointee.type != espeakEVENT_LIST_TERMINATED {
        if event.pointee.type == espeakEVENT_WORD {
            sink.addWord(textPosition: Int(event.pointee.text_position), length: Int(event.pointee.length),
                         audioMs: Int(event.pointee.audio_position))
        }
        event += 1
    }
    return 0
}
