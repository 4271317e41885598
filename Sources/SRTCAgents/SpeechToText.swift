/// A speech-to-text engine: makes one streaming recognizer per speaker. Any engine (PocketSphinx
/// here, a Whisper server over HTTP, a cloud API) plugs into an `Agent` through this protocol.
public protocol SpeechToText: Sendable {
    /// Engine name for logs and docs ("pocketsphinx").
    var name: String { get }
    /// A new recognizer for one speaker's audio. Called once per participant, off the media path.
    func makeRecognizer() throws -> any SpeechRecognizer
}

/// One speaker's streaming recognition. Audio is 16 kHz mono signed 16-bit PCM; times are
/// milliseconds of audio fed since the recognizer was made (silence between utterances counts).
///
/// The agent calls it from one thread at a time: `beginUtterance`, `feed` (20 ms at a time),
/// `partial` now and then, `endUtterance`; then again for the next utterance.
public protocol SpeechRecognizer: AnyObject {
    /// Audio fed so far, in milliseconds (`feed` and `skip` both advance it).
    var fedMs: Int { get }
    /// Starts an utterance at the current position.
    func beginUtterance() throws
    /// Adds audio to the current utterance. Must not allocate per call in the steady state.
    func feed(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Advances the clock over audio that is not recognised (silence between utterances).
    func skip(samples: Int)
    /// The best hypothesis so far (`final` false), or nil when there is none yet.
    func partial() -> Transcript?
    /// Ends the utterance and returns its final result (`final` true; empty `text` when nothing
    /// was recognised).
    func endUtterance() throws -> Transcript
}

/// Recognised text with its time span.
public struct Transcript: Sendable, Equatable {
    /// The words, separated by single spaces, without fillers or silence markers.
    public var text: String
    /// Whether this is the utterance's final result (a partial may still change).
    public var final: Bool
    /// Start and end of the speech, in the recognizer's milliseconds.
    public var startMs: Int
    public var endMs: Int
    /// The words with their times when the engine gives them (empty otherwise).
    public var words: [TranscriptWord]

    public init(text: String, final: Bool, startMs: Int, endMs: Int, words: [TranscriptWord] = []) {
        self.text = text
        self.final = final
        self.startMs = startMs
        self.endMs = endMs
        self.words = words
    }
}

/// One recognised word and when it was spoken.
public struct TranscriptWord: Sendable, Equatable {
    public var word: String
    public var startMs: Int
    public var endMs: Int

    public init(word: String, startMs: Int, endMs: Int) {
        self.word = word
        self.startMs = startMs
        self.endMs = endMs
    }
}

extension SpeechRecognizer {
    /// Recognises `pcm` (16 kHz mono) as one utterance, fed 20 ms at a time as an agent feeds
    /// it: for files, tests and benchmarks.
    public func transcribe(_ pcm: [Int16]) throws -> Transcript {
        try beginUtterance()
        try pcm.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let n = min(320, all.count - offset)
                try feed(UnsafeBufferPointer(rebasing: all[offset..<offset + n]))
                offset += n
            }
        }
        return try endUtterance()
    }
}
