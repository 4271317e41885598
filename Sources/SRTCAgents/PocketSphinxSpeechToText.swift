import CPocketSphinx
import Foundation

/// Speech to text with PocketSphinx (Debian's `libpocketsphinx-dev`) and its US English model
/// (`pocketsphinx-en-us`): an n-gram language model over a large dictionary, 16 kHz input.
/// Modest accuracy on conversational speech; quick and entirely local.
///
/// Two passes: partials come from a decoder fed as the audio arrives, with a running cepstral
/// mean (`-cmn live`); the final result decodes the whole utterance again with its own mean
/// (`-cmn batch`, as the model was trained). The model asks for batch normalisation, which
/// computes the mean over each buffer given to the decoder (20 ms when streaming) and gives
/// nonsense there; a running mean starts from a guess and misses an utterance's first words.
public struct PocketSphinxSpeechToText: SpeechToText {
    /// Where Debian's `pocketsphinx-en-us` puts the model.
    public static let debianModelDirectory = "/usr/share/pocketsphinx/model/en-us"

    public let name = "pocketsphinx"
    public let acousticModel: String
    public let languageModel: String
    public let dictionary: String
    /// The model's feature parameters with a running mean, for the streaming decoder.
    let liveFeatureParameters: String

    /// - Parameter modelDirectory: a directory holding `en-us/` (acoustic model), `en-us.lm.bin`
    ///   and `cmudict-en-us.dict`, as Debian's package lays them out.
    /// - Throws: `AgentError.engineUnavailable` when a model file is missing.
    public init(modelDirectory: String = PocketSphinxSpeechToText.debianModelDirectory) throws(AgentError) {
        acousticModel = modelDirectory + "/en-us"
        languageModel = modelDirectory + "/en-us.lm.bin"
        dictionary = modelDirectory + "/cmudict-en-us.dict"
        for path in [acousticModel, languageModel, dictionary] where !FileManager.default.fileExists(atPath: path) {
            throw .engineUnavailable("pocketsphinx: no model file \(path) (apt-get install pocketsphinx-en-us)")
        }
        guard let parameters = try? String(contentsOfFile: acousticModel + "/feat.params", encoding: .utf8) else {
            throw .engineUnavailable("pocketsphinx: no \(acousticModel)/feat.params")
        }
        let live = parameters.split(separator: "\n").filter { !$0.hasPrefix("-cmn ") }.joined(separator: "\n") + "\n-cmn live\n"
        // Named after its contents (FNV-1a), so every process on the machine shares one file.
        let digest = live.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        liveFeatureParameters = NSTemporaryDirectory() + "/srtc-pocketsphinx-live-\(String(digest, radix: 16)).params"
        let existing = try? String(contentsOfFile: liveFeatureParameters, encoding: .utf8)
        guard existing == live || FileManager.default.createFile(atPath: liveFeatureParameters, contents: Data(live.utf8)) else {
            throw .engineUnavailable("pocketsphinx: cannot write \(liveFeatureParameters)")
        }
    }

    public func makeRecognizer() throws -> any SpeechRecognizer {
        try PocketSphinxRecognizer(engine: self)
    }

    /// A decoder on the model, with `featureParameters` instead of the model's when given.
    func makeDecoder(featureParameters: String?) throws(AgentError) -> OpaquePointer {
        guard let config = srtc_ps_config(acousticModel, languageModel, dictionary, "/dev/null", featureParameters) else {
            throw .engineUnavailable("pocketsphinx: the configuration was refused")
        }
        defer { cmd_ln_free_r(config) }  // the decoder keeps its own reference
        guard let decoder = ps_init(config) else { throw .engineUnavailable("pocketsphinx: the decoder did not load its model") }
        return decoder
    }
}

/// One speaker's two PocketSphinx decoders (each loads the model) and the utterance's audio.
final class PocketSphinxRecognizer: SpeechRecognizer {
    private let live: OpaquePointer
    private let final: OpaquePointer
    /// The utterance so far, for the final pass (kept between utterances: no allocation once
    /// it has held the longest utterance).
    private var utterance: [Int16] = []
    private var fedSamples = 0
    private var utteranceStartSamples = 0
    private var inUtterance = false

    init(engine: PocketSphinxSpeechToText) throws(AgentError) {
        live = try engine.makeDecoder(featureParameters: engine.liveFeatureParameters)
        do { final = try engine.makeDecoder(featureParameters: nil) } catch {
            ps_free(live)
            throw error
        }
        utterance.reserveCapacity(16_000 * 30)
    }

    deinit {
        if inUtterance { ps_end_utt(live) }
        ps_free(live)
        ps_free(final)
    }

    var fedMs: Int { fedSamples / 16 }

    func beginUtterance() throws {
        if inUtterance { ps_end_utt(live) }
        guard ps_start_utt(live) >= 0 else { throw AgentError.engineFailed("pocketsphinx: ps_start_utt") }
        inUtterance = true
        utteranceStartSamples = fedSamples
        utterance.removeAll(keepingCapacity: true)
    }

    func feed(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        fedSamples += samples.count
        guard inUtterance else { return }
        utterance.append(contentsOf: samples)
        guard ps_process_raw(live, base, samples.count, 0, 0) >= 0 else {
            throw AgentError.engineFailed("pocketsphinx: ps_process_raw")
        }
    }

    func skip(samples: Int) {
        fedSamples += samples
    }

    func partial() -> Transcript? {
        guard inUtterance, let hyp = ps_get_hyp(live, nil) else { return nil }
        let text = Self.clean(String(cString: hyp))
        guard !text.isEmpty else { return nil }
        return Transcript(text: text, final: false, startMs: utteranceStartSamples / 16, endMs: fedSamples / 16)
    }

    func endUtterance() throws -> Transcript {
        let start = utteranceStartSamples / 16
        guard inUtterance else { return Transcript(text: "", final: true, startMs: start, endMs: fedSamples / 16) }
        inUtterance = false
        ps_end_utt(live)
        // The final pass: the whole utterance at once, normalised with its own mean.
        guard ps_start_utt(final) >= 0 else { throw AgentError.engineFailed("pocketsphinx: ps_start_utt") }
        let processed = utterance.withUnsafeBufferPointer { ps_process_raw(final, $0.baseAddress, $0.count, 0, 1) }
        guard processed >= 0, ps_end_utt(final) >= 0 else { throw AgentError.engineFailed("pocketsphinx: the final pass") }
        var words: [TranscriptWord] = []
        var segment = ps_seg_iter(final)
        while let current = segment {
            var first: Int32 = 0, last: Int32 = 0
            ps_seg_frames(current, &first, &last)
            if let raw = ps_seg_word(current) {
                let word = Self.clean(String(cString: raw))
                // Frames are 10 ms from the utterance's start.
                if !word.isEmpty { words.append(TranscriptWord(word: word, startMs: start + Int(first) * 10, endMs: start + Int(last + 1) * 10)) }
            }
            segment = ps_seg_next(current)
        }
        let text = words.map(\.word).joined(separator: " ")
        return Transcript(text: text, final: true, startMs: words.first?.startMs ?? start, endMs: words.last?.endMs ?? fedSamples / 16,
                          words: words)
    }

    /// Drops silence and filler markers (`<s>`, `<sil>`, `[NOISE]`, `++UM++`) and alternate
    /// pronunciation numbers (`read(2)`).
    static func clean(_ text: String) -> String {
        text.split(separator: " ").compactMap { token -> String? in
            if token.hasPrefix("<") || token.hasPrefix("[") || token.hasPrefix("+") { return nil }
            if let paren = token.firstIndex(of: "(") { return String(token[..<paren]) }
            return String(token)
        }.joined(separator: " ")
    }
}
