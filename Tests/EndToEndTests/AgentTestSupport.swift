import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCAgents
import SRTCTestSupport
import Synchronization
import TestWait

/// Speech files for agent tests: eSpeak NG says a sentence into a WAV that `srtc join --audio`
/// publishes (looped, so each file ends with enough silence for a turn to end).
enum SpeechWAV {
    /// Writes `text` spoken, then `silenceMs` of silence, scaled by `gain` (clipped at full
    /// scale: gain 8 makes clipped speech). Returns the path.
    static func write(_ text: String, in directory: TemporaryDirectory, name: String, silenceMs: Int = 6_000, leadMs: Int = 300,
                      gain: Float = 1) throws -> String {
        let speech = try ESpeakTextToSpeech().synthesize(text)
        let rate = speech.sampleRate
        let lead = [Int16](repeating: 0, count: rate * leadMs / 1_000)
        let tail = [Int16](repeating: 0, count: rate * silenceMs / 1_000)
        let scaled = speech.samples.map { Int16(max(-32_768, min(32_767, Float($0) * gain))) }
        return try write(lead + scaled + tail, rate: rate, in: directory, name: name)
    }

    /// `seconds` of white noise at about `levelDB` dBFS.
    static func noise(seconds: Int, levelDB: Float = -30, in directory: TemporaryDirectory, name: String) throws -> String {
        var random = SystemRandomNumberGenerator()
        let peak = Int16(32_768 * pow(10, levelDB / 20) * 1.7)  // uniform: RMS = peak / √3
        return try write((0..<16_000 * seconds).map { _ in Int16.random(in: -peak...peak, using: &random) }, rate: 16_000, in: directory, name: name)
    }

    static func write(_ samples: [Int16], rate: Int, in directory: TemporaryDirectory, name: String) throws -> String {
        let path = directory.file(name)
        let writer = try WAVWriter(path: path, sampleRate: rate, channels: 1)
        try writer.write(AudioPCMBuffer(int16: samples, sampleRate: rate, channels: 1))
        try writer.close()
        return path
    }
}

/// Keeps an agent's events (with the time each arrived) as they come.
final class AgentEventLog: @unchecked Sendable {
    private let events = Mutex<[(at: Int, event: AgentEvent)]>([])

    /// Keeps one event with the agent time it arrived.
    func record(_ event: AgentEvent, at ms: Int) {
        events.withLock { $0.append((ms, event)) }
    }

    var all: [(at: Int, event: AgentEvent)] { events.withLock { $0 } }

    /// Final transcripts of `uid`, in order.
    func finals(_ uid: String) -> [Transcript] {
        all.compactMap { if case .transcript(uid, let t) = $0.event, t.final { return t }; return nil }
    }

    /// Every transcript (partial or final) and whose it is.
    var transcripts: [(uid: String, transcript: Transcript)] {
        all.compactMap { if case .transcript(let uid, let t) = $0.event { return (uid, t) }; return nil }
    }

    /// The text of `uid`'s final transcripts, joined.
    func heard(_ uid: String) -> String { finals(uid).map(\.text).joined(separator: " ") }

    func first(_ match: (AgentEvent) -> Bool) -> (at: Int, event: AgentEvent)? { all.first { match($0.event) } }
}

/// Each 20 ms of a subscribed track as it arrives: its level and the time (ms, monotonic).
final class LevelRecorder: AudioRenderer, @unchecked Sendable {
    private let start: UInt64
    private let levels = Mutex<[(at: Int, db: Float)]>([])
    private let pcm = Mutex<[Float]>([])

    init(start: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        self.start = start
    }

    func render(pcmBuffer: AudioPCMBuffer) {
        let at = Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        let samples = pcmBuffer.channel(0)
        let rms = (samples.reduce(Float(0)) { $0 + $1 * $1 } / Float(max(1, samples.count))).squareRoot()
        levels.withLock { $0.append((at, rms > 0 ? 20 * log10(rms) : -100)) }
        pcm.withLock { $0 += samples }
    }

    var all: [(at: Int, db: Float)] { levels.withLock { $0 } }
    var samples: [Float] { pcm.withLock { $0 } }

    /// Arrival times of frames louder than `db`.
    func loud(above db: Float = -40) -> [Int] { all.filter { $0.db > db }.map(\.at) }
}

/// Every data message a participant receives, whatever its topic: `(from, topic, text)`.
final class TextCollector: ChannelDelegate, Sendable {
    struct Text: Equatable, Sendable {
        let from: String?
        let topic: String?
        let text: String
    }
    private let texts = Mutex<[Text]>([])

    func channel(_ channel: Channel, didReceiveData message: DataMessage) {
        texts.withLock { $0.append(Text(from: message.from, topic: message.topic, text: String(decoding: message.data, as: UTF8.self))) }
    }

    var all: [Text] { texts.withLock { $0 } }
}
