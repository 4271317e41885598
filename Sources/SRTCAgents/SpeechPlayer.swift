import Foundation
import RTCMedia
import SRTC
import Synchronization

/// Plays synthesized speech on the agent's microphone track in real time, 20 ms at a time from
/// its own thread, and stops at the next 20 ms when interrupted. The buffers are cut before
/// playback starts, so the playing loop pushes and sleeps, nothing more.
final class SpeechPlayer: Sendable {
    /// Silence pushed after the speech (or the cut) so the last sound leaves the encoder.
    static let tailFrames = 5

    private let track: LocalCustomAudioTrack
    private let clockMs: @Sendable () -> Int
    private let current = Mutex<Playback?>(nil)

    /// One `say` being played.
    private final class Playback: Sendable {
        let stop = Atomic<Bool>(false)
        let cut = Mutex<(by: String?, atMs: Int)?>(nil)
    }

    init(track: LocalCustomAudioTrack, clockMs: @escaping @Sendable () -> Int) {
        self.track = track
        self.clockMs = clockMs
    }

    /// Whether speech is playing now.
    var isPlaying: Bool { current.withLock { $0 != nil } }

    /// Stops the speech playing now, if any; `by` is the participant who barged in.
    /// - Returns: whether something was playing.
    @discardableResult
    func interrupt(by uid: String?) -> Bool {
        guard let playback = current.withLock({ $0 }) else { return false }
        let at = clockMs()
        playback.cut.withLock { if $0 == nil { $0 = (uid, at) } }
        playback.stop.store(true, ordering: .relaxed)
        return true
    }

    /// Plays `speech` (already converted to 48 kHz mono) and returns how it ended. A `say`
    /// while another plays interrupts the older one first.
    func play(_ speech: SynthesizedSpeech, text: String, pcm48k: [Int16]) async -> SpeechOutcome {
        let frame = 960
        var buffers: [AudioPCMBuffer] = []
        buffers.reserveCapacity(pcm48k.count / frame + Self.tailFrames + 1)
        var offset = 0
        while offset < pcm48k.count {
            var chunk = Array(pcm48k[offset..<min(pcm48k.count, offset + frame)])
            if chunk.count < frame { chunk += [Int16](repeating: 0, count: frame - chunk.count) }
            buffers.append(AudioPCMBuffer(int16: chunk, sampleRate: 48_000, channels: 1))
            offset += frame
        }
        let silence = AudioPCMBuffer.silence(frameCount: frame, sampleRate: 48_000, channels: 1)
        let playback = Playback()
        let previous = current.withLock { old -> Playback? in defer { old = playback }; return old }
        previous?.stop.store(true, ordering: .relaxed)
        let track = self.track, frames = buffers
        let played: Int = await withCheckedContinuation { continuation in
            let thread = Thread {
                let start = DispatchTime.now().uptimeNanoseconds
                var n = 0
                while n < frames.count && !playback.stop.load(ordering: .relaxed) {
                    track.pushAudioBuffer(frames[n])
                    n += 1
                    Self.sleep(until: start + UInt64(n) * 20_000_000)
                }
                for t in 0..<Self.tailFrames {
                    track.pushAudioBuffer(silence)
                    Self.sleep(until: start + UInt64(n + t + 1) * 20_000_000)
                }
                continuation.resume(returning: n)
            }
            thread.name = "agent-speech"
            thread.start()
        }
        current.withLock { if $0 === playback { $0 = nil } }
        let playedMs = played * 20
        let completed = played == buffers.count
        let cut = playback.cut.withLock { $0 }
        return SpeechOutcome(text: text, spokenText: completed ? text : speech.textSpoken(before: playedMs), completed: completed,
                             playedMs: min(playedMs, speech.durationMs), interruptedBy: cut?.by, cutAtMs: cut?.atMs)
    }

    private static func sleep(until due: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        if due > now { usleep(UInt32(min(1_000_000, (due - now) / 1_000))) }
    }
}
