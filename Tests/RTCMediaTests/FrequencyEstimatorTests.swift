import RTCMedia
import Testing

/// The two pitch estimates on a tone as a speaker's monitor records it with a playback glitch:
/// the span-based one moves with a dropout or a burst of noise, the median period does not.
struct FrequencyEstimatorTests {
    static func tone(_ frequency: Double, seconds: Double) -> [Float] {
        var generator = SineToneGenerator(frequency: frequency)
        return generator.next(frameCount: Int(seconds * 48_000)).floatSamples
    }

    @Test func aCleanToneMeasuresItsPitchEitherWay() throws {
        for frequency in [220.0, 440, 1_000] {
            let samples = Self.tone(frequency, seconds: 1)
            #expect(abs(try #require(FrequencyEstimator.zeroCrossingFrequency(samples, sampleRate: 48_000)) - frequency) < 0.1)
            #expect(abs(try #require(FrequencyEstimator.medianPeriodFrequency(samples, sampleRate: 48_000)) - frequency) < 0.1)
        }
        // An octave lower is measured as such: glitches aside, the pitch is still checked.
        let low = try #require(FrequencyEstimator.medianPeriodFrequency(Self.tone(220, seconds: 1), sampleRate: 48_000))
        #expect(abs(low - 440) > 200)
    }

    @Test func aDropoutOrANoiseBurstMovesOnlyTheSpanBasedEstimate() throws {
        let tone = Self.tone(440, seconds: 1)
        // 8 ms of silence inserted after 300 ms (an underrun); or 10 ms of the tone replaced by
        // 2.4 kHz (a click or concealment gone wrong).
        let dropout = Array(tone[..<14_400]) + [Float](repeating: 0, count: 384) + Array(tone[14_400...])
        let noise = Array(tone[..<14_400]) + Self.tone(2_400, seconds: 0.01) + Array(tone[14_880...])
        let spanDropout = try #require(FrequencyEstimator.zeroCrossingFrequency(dropout, sampleRate: 48_000))
        let spanNoise = try #require(FrequencyEstimator.zeroCrossingFrequency(noise, sampleRate: 48_000))
        #expect(spanDropout < 437 && spanNoise > 450, "span-based: \(spanDropout) Hz, \(spanNoise) Hz")
        for glitched in [dropout, noise] {
            let pitch = try #require(FrequencyEstimator.medianPeriodFrequency(glitched, sampleRate: 48_000))
            #expect(abs(pitch - 440) < 0.1, "median period: \(pitch) Hz")
        }
        #expect(FrequencyEstimator.medianPeriodFrequency([Float](repeating: 0, count: 4_800), sampleRate: 48_000) == nil)
    }
}
