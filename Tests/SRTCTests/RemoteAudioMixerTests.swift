import RTCMedia
@testable import SRTCCore
import TestRandom
import Testing

/// The speaker's mixer: jitter and bursts are played in full, only a lasting excess (a faster
/// clock) is trimmed, the playout target follows the jitter, muting discards.
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
        // then it all arrives at once and steady again: 300 ms ahead, more than the target and `trimMargin`, but
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
        // Untrimmed, 200 ms would pile up; trimmed, it stays within a second's growth of the target and `trimMargin`.
        for _ in 0..<10 {
            mixer.push(id, ramp.buffer())
            for pullIndex in 0..<100 {
                if pullIndex % 2 == 0 { mixer.push(id, ramp.buffer()) }
                _ = pull(mixer)
                deepest = max(deepest, mixer.bufferedSamples(id))
            }
        }
        #expect(deepest <= mixer.prefill + mixer.trimMargin + 3 * 960, "deepest \(deepest)")
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

    /// A window that both shrinks the target (calm windows before it) and trims an excess (a
    /// burst in it) drops down to the new target, not a shrink step below: the shrink's own drop
    /// counts toward the trim. Counting it twice left the buffer 10 ms under its target, closer to
    /// an underrun than the target allows.
    @Test func aShrinkAndATrimInOneWindowDropDownToTheTargetOnly() throws {
        // Windows of 100 ms (five 20 ms buffers, each pulled in two 10 ms steps); 20 ms of margin.
        let mixer = RemoteAudioMixer(prefill: 1_920, minPrefill: 960, maxPrefill: 9_600, trimMargin: 960, trimWindow: 4_800)
        let id = ObjectIdentifier(Source())
        var ramp = Ramp()
        for _ in 0..<2 { mixer.push(id, ramp.buffer()) }
        for step in 0..<15 {
            // The third window starts with a burst of 40 ms: it stays ahead for that whole window.
            if step == 10 { for _ in 0..<2 { mixer.push(id, ramp.buffer()) } }
            mixer.push(id, ramp.buffer())
            _ = pull(mixer)
            _ = pull(mixer)
            // Two calm windows at 40 ms at their lowest, no change (20 ms above 2 shrink steps,
            // not above target + margin).
            if step == 4 || step == 9 { #expect(mixer.bufferedSamples(id) == 1_920 && mixer.playout(id)?.targetSamples == 1_920) }
        }
        // The third window ended: the target shrank by 10 ms, and the burst's excess went with it.
        let target = try #require(mixer.playout(id)).targetSamples
        #expect(target == 1_440)
        #expect(mixer.bufferedSamples(id) == target)
        #expect(mixer.playout(id)?.underruns == 0)
    }

    /// Plays `seconds` of 20 ms packets arriving in order with a delay from `delay` (ms; drawn per
    /// packet) through `mixer`, pulled in 10 ms steps of virtual time; returns the underruns of
    /// each second.
    func play(_ mixer: RemoteAudioMixer, _ id: ObjectIdentifier, seconds: Int, from start: inout (packet: Int, arrival: Int),
              delay: () -> Int) -> [Int] {
        var ramp = Ramp(next: start.packet * 960)
        var perSecond: [Int] = []
        var underruns = mixer.playout(id)?.underruns ?? 0
        let firstTick = start.packet * 2
        var pending: [Int] = []   // arrival times (ms) of packets sent but not yet arrived
        var sent = start.packet
        for tick in firstTick..<(firstTick + seconds * 100) {
            let now = tick * 10
            while sent * 20 <= now {
                start.arrival = max(start.arrival, sent * 20 + delay())   // in order: the receiver reordered already
                pending.append(start.arrival)
                sent += 1
            }
            while let first = pending.first, first <= now {
                mixer.push(id, ramp.buffer())
                pending.removeFirst()
            }
            _ = pull(mixer)
            if (tick - firstTick) % 100 == 99 {
                let total = mixer.playout(id)?.underruns ?? underruns
                perSecond.append(total - underruns)
                underruns = total
            }
        }
        start.packet = sent - pending.count
        return perSecond
    }

    @Test func theTargetGrowsOnUnderrunsUntilJitterIsCoveredAndShrinksBackWhenCalm() throws {
        // Jitter: packets 0–10 ms late, and every 1.5–3.5 s one 150–250 ms late (a stalled
        // network path), the packets behind it arriving together right after.
        var random = SeededRandom(seed: 10)
        var spikes: [Int: Int] = [:]
        var time = 1_000
        while time < 60_000 {
            time += Int.random(in: 1_500...3_500, using: &random)
            spikes[time / 20] = Int.random(in: 150...250, using: &random)
        }
        var small = [Int]()
        for _ in 0..<3_000 { small.append(Int.random(in: 0...10, using: &random)) }
        func run(_ mixer: RemoteAudioMixer) -> (underruns: [Int], id: ObjectIdentifier, clock: (packet: Int, arrival: Int)) {
            let id = ObjectIdentifier(Source())
            var clock = (packet: 0, arrival: 0)
            var index = 0
            let perSecond = play(mixer, id, seconds: 60, from: &clock) {
                defer { index += 1 }
                return spikes[index] ?? small[index % small.count]
            }
            return (perSecond, id, clock)
        }
        let fixedMixer = RemoteAudioMixer(prefill: 1_920, minPrefill: 1_920, maxPrefill: 1_920)
        let mixer = RemoteAudioMixer()
        let fixed = run(fixedMixer)
        let adaptive = run(mixer)

        // Before (a fixed 40 ms target): once the excess left by a late burst is trimmed, the
        // next one breaks the sound again, to the end.
        let fixedLate = fixed.underruns.suffix(30).reduce(0, +)
        #expect(fixedLate >= 8, "fixed: \(fixed.underruns)")
        // After: the first late bursts grow the target over them; then underruns become rare.
        let adaptiveLate = adaptive.underruns.suffix(30).reduce(0, +)
        #expect(adaptiveLate * 3 <= fixedLate, "adaptive \(adaptive.underruns) vs fixed \(fixed.underruns)")
        let grown = try #require(mixer.playout(adaptive.id)).targetSamples
        #expect(grown >= 1_920 + 4 * 960 && grown <= mixer.maxPrefill, "target \(grown)")

        // The link calms down (0–5 ms): no underrun, and the target, with the latency, comes back.
        var clock = adaptive.clock
        var calm = SeededRandom(seed: 11)
        let calmUnderruns = play(mixer, adaptive.id, seconds: 40, from: &clock) { Int.random(in: 0...5, using: &calm) }
        #expect(calmUnderruns.reduce(0, +) == 0, "\(calmUnderruns)")
        let shrunk = try #require(mixer.playout(adaptive.id)).targetSamples
        #expect(shrunk <= grown - 4_800, "target \(grown) → \(shrunk)")
        #expect(mixer.bufferedSamples(adaptive.id) <= shrunk + mixer.trimMargin + 960)
    }

    @Test func theTargetStaysWithinItsBounds() {
        var target = AdaptivePlayoutTarget(initial: 1_920, minimum: 960, maximum: 4_800)
        for _ in 0..<10 { target.underrun() }
        #expect(target.samples == 4_800 && target.underruns == 10)
        #expect(target.windowEnded(lowest: 5_000) == 0)   // the window had underruns
        var dropped = 0
        for _ in 0..<100 { dropped += target.windowEnded(lowest: 5_000) }
        #expect(target.samples == 960 && dropped == 4_800 - 960)
        // A buffer that came close to empty does not shrink.
        var close = AdaptivePlayoutTarget(initial: 3_840, minimum: 960, maximum: 14_400)
        for _ in 0..<10 { #expect(close.windowEnded(lowest: 900) == 0) }
        #expect(close.samples == 3_840)
        // After an underrun, the gap it left is covered when audio comes back.
        close.underrun()
        #expect(close.samples == 3_840 + 960)
        close.arrived(afterDry: 4_800)
        #expect(close.samples == 3_840 + 4_800 + 960)
        close.underrun()
        close.arrived(afterDry: 100_000)
        #expect(close.samples == 14_400)   // the maximum
    }
}
