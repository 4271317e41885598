import RTCMedia
@testable import SRTC
import Testing

/// The speaker's mixer: jitter and bursts are played in full, only a lasting excess (a faster
/// clock) is trimmed, muting discards.
struct RemoteAudioMixerTests {
    final class Source {}

    /// 20 ms buffers of a ramp (each sample its own index, scaled), so lost or repeated samples show.
    struct Ramp {
        var next = 0
        mutating func buffer() -> AudioPCMBuffer {
            defer { next += 960 }
            return AudioPCMBuffer(float32: (next..<(next + 960)).map { Float($0 % 100_000) / 100_000 + 0.00001 }, sampleRate: 48_000, channels: 1)
        }
    }

    func pull(_ mixer: RemoteAudioMixer, _ count: Int = 480) -> [Float] {
        var out = [Float](repeating: 1, count: count)
        out.withUnsafeMutableBufferPointer { mixer.pull(into: $0) }
        return out
    }

    @Test func steadyAndBurstyArrivalsArePlayedInFullAndInOrder() {
        let mixer = RemoteAudioMixer()
        let id = ObjectIdentifier(Source())
        var ramp = Ramp()
        var played: [Float] = []
        // Steady for a second: one 20 ms buffer per two 10 ms pulls.
        for _ in 0..<50 {
            mixer.push(id, ramp.buffer())
            played += pull(mixer) + pull(mixer)
        }
        // 300 ms of the output running on while nothing arrives (a receive thread that stalled),
        // then it all arrives at once and steady again: 300 ms ahead, more than `maxDepth`, but
        // not for a whole trim window, so nothing is dropped.
        for _ in 0..<15 { played += pull(mixer) + pull(mixer) }
        for _ in 0..<15 { mixer.push(id, ramp.buffer()) }
        for _ in 0..<40 {
            mixer.push(id, ramp.buffer())
            played += pull(mixer) + pull(mixer)
        }
        let audible = played.filter { $0 != 0 }
        let sent = (0..<ramp.next).map { Float($0 % 100_000) / 100_000 + 0.00001 }
        #expect(audible == Array(sent.prefix(audible.count)), "samples lost or reordered")
        #expect(audible.count == ramp.next - mixer.bufferedSamples(id))
    }

    @Test func aSourceThatRunsFastIsTrimmedOnceItStaysAhead() {
        let mixer = RemoteAudioMixer()
        let id = ObjectIdentifier(Source())
        var ramp = Ramp()
        var deepest = 0
        // A sender clock 2 % fast: 51 buffers (1.02 s) arrive for every second played, for 10 s.
        // Untrimmed, 200 ms would pile up; trimmed, it stays within a second's growth of `maxDepth`.
        for _ in 0..<10 {
            mixer.push(id, ramp.buffer())
            for pullIndex in 0..<100 {
                if pullIndex % 2 == 0 { mixer.push(id, ramp.buffer()) }
                _ = pull(mixer)
                deepest = max(deepest, mixer.bufferedSamples(id))
            }
        }
        #expect(deepest <= mixer.maxDepth + 3 * 960, "deepest \(deepest)")
    }

    @Test func mutedTheOutputIsSilentAndNothingPilesUp() {
        let mixer = RemoteAudioMixer()
        let id = ObjectIdentifier(Source())
        var ramp = Ramp()
        for _ in 0..<5 { mixer.push(id, ramp.buffer()) }
        #expect(pull(mixer).contains { $0 != 0 })
        mixer.isMuted = true
        for _ in 0..<20 { mixer.push(id, ramp.buffer()) }
        #expect(pull(mixer).allSatisfy { $0 == 0 } && mixer.bufferedSamples(id) == 0)
        mixer.isMuted = false
        for _ in 0..<3 { mixer.push(id, ramp.buffer()) }
        #expect(pull(mixer).allSatisfy { $0 != 0 })   // buffered 40 ms again: plays
    }
}
