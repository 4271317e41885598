// A continuous sine tone, cut into PCM buffers of any length: the audio test signal of the CLI's
// `srtc join --tone` and of the end-to-end tests, whose receivers check the pitch with `FrequencyEstimator`.
import Foundation

/// Produces a sine tone in consecutive `AudioPCMBuffer`s with continuous phase and timestamps.
public struct SineToneGenerator: Sendable {
    /// Tone frequency in hertz.
    public var frequency: Double
    /// Samples per second.
    public let sampleRate: Int
    /// Channels; every channel carries the same tone.
    public let channels: Int
    /// Peak amplitude as a fraction of full scale, 0…1.
    public var amplitude: Double
    /// Frames generated so far; the next buffer starts here (its `timestampUs` follows from it).
    public private(set) var framePosition: Int64 = 0
    private var phase: Double = 0

    // MARK: - Public API

    /// Creates a generator.
    /// - Parameters:
    ///   - frequency: hertz, e.g. 440.
    ///   - sampleRate: samples per second, 48 000 by default.
    ///   - channels: 1 by default.
    ///   - amplitude: peak as a fraction of full scale, 0.5 by default.
    public init(frequency: Double, sampleRate: Int = 48_000, channels: Int = 1, amplitude: Double = 0.5) {
        self.frequency = frequency
        self.sampleRate = max(1, sampleRate)
        self.channels = max(1, channels)
        self.amplitude = amplitude
    }

    /// The next `frameCount` frames of the tone as 16-bit PCM (960 frames = 20 ms at 48 kHz).
    public mutating func next(frameCount: Int) -> AudioPCMBuffer {
        var samples = [Int16](repeating: 0, count: max(0, frameCount) * channels)
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        let scale = max(0, min(1, amplitude)) * 32_767
        for frame in 0..<max(0, frameCount) {
            let value = Int16((sin(phase) * scale).rounded())
            for channel in 0..<channels { samples[frame * channels + channel] = value }
            phase += step
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        }
        let timestamp = framePosition * 1_000_000 / Int64(sampleRate)
        framePosition += Int64(max(0, frameCount))
        return AudioPCMBuffer(int16: samples, sampleRate: sampleRate, channels: channels, timestampUs: timestamp)
    }
}
