@testable import EgressWorker
import RTCMedia
import Testing

@Suite struct AudioMixerTests {
    @Test func mixesEverySourceWithHeadroom() throws {
        let mixer = AudioMixer()
        var tones = [300.0, 700.0, 1_100.0].map { SineToneGenerator(frequency: $0, amplitude: 0.8) }
        var mixed: [Float] = []
        for _ in 0..<50 {
            for (i, _) in tones.enumerated() {
                mixer.push(source: "s\(i)", samples: tones[i].next(frameCount: 960).floatSamples, channels: 1)
            }
            let (samples, _) = mixer.mix()
            mixed += samples
        }
        let tail = Array(mixed.suffix(24_000))
        let noise = FrequencyEstimator.goertzelPower(tail, frequency: 500, sampleRate: 48_000)
        for hz in [300.0, 700.0, 1_100.0] {
            let power = FrequencyEstimator.goertzelPower(tail, frequency: hz, sampleRate: 48_000)
            #expect(power > 100 * noise, "\(hz) Hz: \(power) vs \(noise)")
        }
        // Three sources at 0.8 would reach 2.4: headroom and the limiter keep it under full scale.
        #expect(tail.map(abs).max()! <= 0.99 && tail.map(abs).max()! > 0.5)
    }

    @Test func aSourceWithoutAudioAddsSilenceAndAnUnderrunWaitsForBuffer() {
        let mixer = AudioMixer()
        #expect(mixer.mix().active == 0)
        var tone = SineToneGenerator(frequency: 440)
        mixer.push(source: "a", samples: tone.next(frameCount: 960).floatSamples, channels: 1)
        // One frame is not enough to start (jitter): silence.
        #expect(mixer.mix().samples.allSatisfy { $0 == 0 })
        mixer.push(source: "a", samples: tone.next(frameCount: 960).floatSamples, channels: 1)
        let (samples, active) = mixer.mix()
        #expect(active == 1 && samples.contains { $0 != 0 })
        mixer.remove(source: "a")
        #expect(mixer.mix().active == 0)
    }

    @Test func stereoIsAveragedToMono() {
        let mixer = AudioMixer()
        let interleaved = (0..<1_920).flatMap { _ in [Float(0.5), Float(-0.5)] }
        mixer.push(source: "s", samples: interleaved, channels: 2)
        #expect(mixer.mix().samples.allSatisfy { $0 == 0 })
    }
}
