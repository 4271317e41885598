// Pitch measurement for received test tones. Zero crossings (with linear interpolation between samples)
// give the frequency of a clean tone to a fraction of a hertz; Goertzel gives the energy at one frequency,
// which tells "the tone is there" apart from noise even when the signal is distorted.
import Foundation

/// Measures the frequency content of PCM audio.
public enum FrequencyEstimator {
    // MARK: - Public API

    /// Frequency of a tone from its rising zero crossings, or nil with fewer than two crossings.
    /// - Parameters:
    ///   - samples: one channel's samples (any scale).
    ///   - sampleRate: samples per second.
    public static func zeroCrossingFrequency(_ samples: [Float], sampleRate: Int) -> Double? {
        // Ignore tiny wiggles around zero (codec noise in silence) with a small hysteresis.
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        guard peak > 0 else { return nil }
        let threshold = peak * 0.05
        var armed = false
        var first: Double?
        var last = 0.0
        var crossings = 0
        for index in 1..<max(1, samples.count) {
            if samples[index - 1] < -threshold { armed = true }
            guard armed, samples[index - 1] < 0, samples[index] >= 0 else { continue }
            let fraction = Double(-samples[index - 1]) / Double(samples[index] - samples[index - 1])
            let position = Double(index - 1) + fraction
            if first == nil { first = position }
            last = position
            crossings += 1
            armed = false
        }
        guard let first, crossings >= 2, last > first else { return nil }
        return Double(crossings - 1) * Double(sampleRate) / (last - first)
    }

    /// Frequency of a tone in channel `channel` of a PCM buffer (see `zeroCrossingFrequency`).
    public static func frequency(of buffer: AudioPCMBuffer, channel: Int = 0) -> Double? {
        zeroCrossingFrequency(buffer.channel(channel), sampleRate: buffer.sampleRate)
    }

    /// Normalised power at `frequency` (Goertzel): about `amplitude² / 4` for a pure tone, near 0 without it.
    public static func goertzelPower(_ samples: [Float], frequency: Double, sampleRate: Int) -> Double {
        guard !samples.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        let n = Double(samples.count)
        return power / (n * n)
    }

    /// Root-mean-square level of the samples (0 for silence).
    public static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
