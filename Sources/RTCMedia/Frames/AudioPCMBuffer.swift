// Uncompressed audio as the SDK's `pushAudioBuffer`, audio renderers, the Opus codec and WAV files
// exchange it: interleaved samples, either 16-bit integers or 32-bit floats.

// MARK: - Types

/// A block of interleaved PCM audio: `frameCount` frames of `channels` samples each.
///
/// Integer samples use the full `Int16` range; float samples are nominally in `-1.0...1.0`.
/// Conversions between the two scale by 32 768 and clamp.
public struct AudioPCMBuffer: Sendable, Equatable {
    /// The sample storage, interleaved (left, right, left, right, … for stereo).
    public enum Samples: Sendable, Equatable {
        /// Signed 16-bit integer samples.
        case int16([Int16])
        /// 32-bit float samples, nominally in -1.0...1.0.
        case float32([Float])

        /// Number of samples across all channels.
        public var count: Int {
            switch self {
            case .int16(let values): values.count
            case .float32(let values): values.count
            }
        }
    }

    /// Samples per second per channel (48 000 for Opus).
    public var sampleRate: Int
    /// Interleaved channels (1 = mono, 2 = stereo).
    public var channels: Int
    /// The samples; their count is always `frameCount * channels`.
    public private(set) var samples: Samples
    /// Presentation time of the first frame in microseconds, when known.
    public var timestampUs: Int64?

    // MARK: - Public API

    /// Wraps interleaved 16-bit samples.
    /// - Precondition: `channels >= 1`, `sampleRate >= 1` and `samples.count` is a multiple of `channels`.
    public init(int16 samples: [Int16], sampleRate: Int, channels: Int, timestampUs: Int64? = nil) {
        precondition(channels >= 1 && sampleRate >= 1 && samples.count % channels == 0, "PCM layout mismatch")
        self.samples = .int16(samples)
        self.sampleRate = sampleRate
        self.channels = channels
        self.timestampUs = timestampUs
    }

    /// Wraps interleaved float samples.
    /// - Precondition: `channels >= 1`, `sampleRate >= 1` and `samples.count` is a multiple of `channels`.
    public init(float32 samples: [Float], sampleRate: Int, channels: Int, timestampUs: Int64? = nil) {
        precondition(channels >= 1 && sampleRate >= 1 && samples.count % channels == 0, "PCM layout mismatch")
        self.samples = .float32(samples)
        self.sampleRate = sampleRate
        self.channels = channels
        self.timestampUs = timestampUs
    }

    /// A buffer of silence.
    public static func silence(frameCount: Int, sampleRate: Int, channels: Int) -> AudioPCMBuffer {
        AudioPCMBuffer(int16: [Int16](repeating: 0, count: frameCount * channels), sampleRate: sampleRate,
                       channels: channels)
    }

    /// Frames (samples per channel) held.
    public var frameCount: Int { samples.count / channels }

    /// Duration in microseconds.
    public var durationUs: Int64 { Int64(frameCount) * 1_000_000 / Int64(sampleRate) }

    /// The samples as 16-bit integers (converted and clamped when stored as float).
    public var int16Samples: [Int16] {
        switch samples {
        case .int16(let values): return values
        case .float32(let values): return values.map(Self.int16(from:))
        }
    }

    /// The samples as floats (scaled by 1/32 768 when stored as integers).
    public var floatSamples: [Float] {
        switch samples {
        case .float32(let values): return values
        case .int16(let values): return values.map { Float($0) / 32_768 }
        }
    }

    /// One channel's samples as floats, de-interleaved (for analysis such as `FrequencyEstimator`).
    public func channel(_ index: Int) -> [Float] {
        let all = floatSamples
        return stride(from: index, to: all.count, by: channels).map { all[$0] }
    }

    /// Converts one float sample to 16 bits, clamping out-of-range values (NaN becomes 0).
    public static func int16(from value: Float) -> Int16 {
        guard !value.isNaN else { return 0 }
        let scaled = (value * 32_768).rounded()
        return Int16(max(-32_768, min(32_767, scaled)))
    }
}
