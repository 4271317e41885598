/// A text-to-speech engine: text in, PCM out at the rate it states. Any engine plugs into
/// `Agent.say` through this protocol.
public protocol TextToSpeech: Sendable {
    /// Engine name for logs and docs ("espeak-ng").
    var name: String { get }
    /// Synthesizes `text`. May take a while; the agent calls it off the media path.
    func synthesize(_ text: String) throws -> SynthesizedSpeech
}

/// Synthesized speech: mono signed 16-bit PCM at `sampleRate`, and where each word starts, so a
/// speaker cut short can say what was heard.
public struct SynthesizedSpeech: Sendable, Equatable {
    public var samples: [Int16]
    public var sampleRate: Int
    /// The words in order with the millisecond at which each starts in `samples` (empty when
    /// the engine does not say).
    public var words: [SpokenWord]

    public init(samples: [Int16], sampleRate: Int, words: [SpokenWord] = []) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.words = words
    }

    /// Duration in milliseconds.
    public var durationMs: Int { sampleRate > 0 ? samples.count * 1_000 / sampleRate : 0 }

    /// The text of the words that started before `ms` of playback (all of it when no word
    /// times are known and `ms` covers the whole speech).
    public func textSpoken(before ms: Int) -> String {
        words.filter { $0.startMs < ms }.map(\.text).joined(separator: " ")
    }
}

/// One word of synthesized speech and where it starts.
public struct SpokenWord: Sendable, Equatable {
    public var text: String
    public var startMs: Int

    public init(text: String, startMs: Int) {
        self.text = text
        self.startMs = startMs
    }
}
