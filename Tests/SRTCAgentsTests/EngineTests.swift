import Foundation
import RTCMedia
@testable import SRTCAgents
import Testing

/// The engines against each other: eSpeak NG says a known sentence, PocketSphinx writes it back.
@Suite(.serialized) struct EngineTests {
    static let sentence = "i would like a cup of coffee with milk please"

    /// eSpeak NG's speech at 16 kHz, as the agent feeds the recognizer.
    static func speech16k(_ text: String) throws -> (speech: SynthesizedSpeech, pcm: [Int16]) {
        let speech = try ESpeakTextToSpeech().synthesize(text)
        return (speech, try resample(speech.samples, from: speech.sampleRate, to: 16_000))
    }

    static func resample(_ samples: [Int16], from rate: Int, to output: Int) throws -> [Int16] {
        let converter = PCMConverter(outputRate: output)
        var out: [Int16] = []
        try samples.withUnsafeBufferPointer { input in
            try converter.convert(int16: input, rate: rate) { out += $0 }
        }
        return out
    }

    static func transcribe(_ pcm: [Int16], recognizer: any SpeechRecognizer) throws -> Transcript {
        try recognizer.transcribe(pcm)
    }

    @Test func eSpeakSpeaksAtItsRateWithWordTimesInOrder() throws {
        let speech = try ESpeakTextToSpeech().synthesize(Self.sentence)
        print("espeak-ng: \(speech.samples.count) samples at \(speech.sampleRate) Hz (\(speech.durationMs) ms); words \(speech.words.map { "\($0.text)@\($0.startMs)" })")
        #expect(speech.sampleRate == 22_050)
        #expect(speech.durationMs > 1_500 && speech.durationMs < 10_000)
        // eSpeak gives a word event for each word it stresses ("the" joins the next one).
        let words = speech.words.map(\.text).joined(separator: " ")
        #expect(WordAlignment.wordsInOrder(expected: words, heard: Self.sentence) == speech.words.count, "\(words)")
        #expect(speech.words.count >= WordAlignment.words(Self.sentence).count * 3 / 4, "\(words)")
        #expect(zip(speech.words, speech.words.dropFirst()).allSatisfy { $0.startMs < $1.startMs })
        let level = speech.samples.withUnsafeBufferPointer { VoiceActivityDetector.levelDB($0) }
        #expect(level > -30, "speech level \(level) dBFS")
        #expect(speech.textSpoken(before: speech.words[2].startMs + 1) == speech.words[0...2].map(\.text).joined(separator: " "))
        #expect(speech.textSpoken(before: speech.durationMs + 1) == words)
    }

    @Test func pocketSphinxTranscribesESpeakNGsSentence() throws {
        let (_, pcm) = try Self.speech16k(Self.sentence)
        let recognizer = try PocketSphinxSpeechToText().makeRecognizer()
        let clock = ContinuousClock()
        var transcript: Transcript?
        let elapsed = try clock.measure { transcript = try Self.transcribe(pcm, recognizer: recognizer) }
        let heard = transcript?.text ?? ""
        let fraction = WordAlignment.fractionInOrder(expected: Self.sentence, heard: heard)
        let audioSeconds = Double(pcm.count) / 16_000
        print("pocketsphinx heard \"\(heard)\": \(Int(fraction * 100)) % of the words in order; \(String(format: "%.2f", audioSeconds)) s of audio in \(elapsed)")
        #expect(fraction >= 0.7, "heard \"\(heard)\"")
        #expect(transcript?.final == true)
        let words = transcript?.words ?? []
        #expect(words.map(\.word).joined(separator: " ") == heard)
        #expect(zip(words, words.dropFirst()).allSatisfy { $0.endMs <= $1.startMs })
        #expect((words.last?.endMs ?? 0) <= Int(audioSeconds * 1_000) + 20)
    }

    @Test func theRecognizerHearsNothingInSilenceOrSteadyNoise() throws {
        let recognizer = try PocketSphinxSpeechToText().makeRecognizer()
        let silence = [Int16](repeating: 0, count: 32_000)
        #expect(try Self.transcribe(silence, recognizer: recognizer).text == "")
        var random = SystemRandomNumberGenerator()
        let noise = (0..<48_000).map { _ in Int16.random(in: -600...600, using: &random) }
        let heard = try Self.transcribe(noise, recognizer: recognizer).text
        print("pocketsphinx on 3 s of white noise at -35 dBFS: \"\(heard)\"")
        #expect(WordAlignment.words(heard).count <= 1, "heard \"\(heard)\" in noise")
    }

    @Test func aRecognizerCountsTimeAcrossUtterancesAndSkippedAudio() throws {
        let (_, pcm) = try Self.speech16k("hello world")
        let recognizer = try PocketSphinxSpeechToText().makeRecognizer()
        recognizer.skip(samples: 16_000)  // one second not recognised
        let first = try Self.transcribe(pcm, recognizer: recognizer)
        #expect(first.startMs >= 1_000, "\(first)")
        #expect(recognizer.fedMs == 1_000 + pcm.count / 16)
        let second = try Self.transcribe(pcm, recognizer: recognizer)
        #expect(second.startMs >= 1_000 + pcm.count / 16, "\(second)")
    }

    @Test func aMissingModelIsANamedError() {
        #expect(throws: AgentError.self) { try PocketSphinxSpeechToText(modelDirectory: "/nonexistent") }
    }

    @Test func theConverterKeepsAToneAndLowPassesWhatA16kHzStreamCannotCarry() throws {
        var tone = SineToneGenerator(frequency: 1_000, amplitude: 0.5)
        var high = SineToneGenerator(frequency: 12_000, amplitude: 0.5)
        let converter = PCMConverter(outputRate: 16_000)
        var low: [Int16] = [], aliased: [Int16] = []
        let highConverter = PCMConverter(outputRate: 16_000)
        for _ in 0..<50 {
            try converter.convert(tone.next(frameCount: 960)) { low += $0 }
            try highConverter.convert(high.next(frameCount: 960)) { aliased += $0 }
        }
        #expect(abs(low.count - 16_000) < 400, "\(low.count) samples for 1 s")
        let frequency = FrequencyEstimator.zeroCrossingFrequency(low.suffix(8_000).map { Float($0) / 32_768 }, sampleRate: 16_000)
        #expect(abs((frequency ?? 0) - 1_000) < 20, "\(String(describing: frequency)) Hz")
        let highLevel = aliased.suffix(8_000).withUnsafeBufferPointer { VoiceActivityDetector.levelDB($0) }
        #expect(highLevel < -40, "a 12 kHz tone comes through at \(highLevel) dBFS")
    }

    @Test func wordsInOrderIsTheLongestCommonSubsequenceOfWords() {
        #expect(WordAlignment.wordsInOrder(expected: "Open the door, please!", heard: "open a door please") == 3)
        #expect(WordAlignment.wordsInOrder(expected: "one two three", heard: "three two one") == 1)
        #expect(WordAlignment.fractionInOrder(expected: "", heard: "x") == 0)
        #expect(WordAlignment.fractionInOrder(expected: "a b", heard: "") == 0)
    }
}
