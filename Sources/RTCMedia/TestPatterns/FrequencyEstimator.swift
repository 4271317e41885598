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
        let crossings = risingZeroCrossings(samples)
        guard let first = crossings.first, let last = crossings.last, last > first else { return nil }
        return Double(crossings.count - 1) * Double(sampleRate) / (last - first)
    }

    /// Frequency of a tone from the median interval between its rising zero crossings, or nil
    /// with fewer than three crossings. Unlike `zeroCrossingFrequency`, which divides the cycles
    /// by the whole span, a dropout (silence inserted by a playback underrun) or a skip in the
    /// window does not move it: it is the pitch of what was played, glitches aside.
    public static func medianPeriodFrequency(_ samples: [Float], sampleRate: Int) -> Double? {
        let crossings = risingZeroCrossings(samples)
        guard crossings.count >= 3 else { return nil }
        let periods = zip(crossings.dropFirst(), crossings).map { $0 - $1 }.sorted()
        return Double(sampleRate) / periods[periods.count / 2]
    }

    /// Positions (in samples, interpolated) of the rising zero crossings, each armed by a dip
    /// below 5 % of the peak so that tiny wiggles around zero (codec noise in silence) do not count.
    static func risingZeroCrossings(_ samples: [Float]) -> [Double] {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        guard peak > 0 else { return [] }
        let threshold = peak * 0.05
        var armed = false
        var positions: [Double] = []
        for index in 1..<max(1, samples.count) {
            if samples[index - 1] < -threshold { armed = true }
            guard armed, samples[index - 1] < 0, samples[index] >= 0 else { continue }
            let fraction = Double(-samples[index - 1]) / Double(samples[index] - samples[index - 1])
            positions.append(Double(index - 1) + fraction)
            armed = false
        }
        return positions
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
