import RTCMedia

/// The audio an `AudioProcessor` modifies in place: `frames` float samples per channel, one
/// contiguous (non-interleaved) block per channel, nominally in -1.0...1.0.
///
/// The storage belongs to the SDK and is valid only during `audioProcessingProcess(audioBuffer:)`.
public final class AudioBuffer {
    /// Channels (1 or 2).
    public let channels: Int
    /// Samples per channel.
    public let frames: Int
    /// Samples per second.
    public let sampleRate: Int
    private let storage: UnsafeMutablePointer<Float>

    init(channels: Int, frames: Int, sampleRate: Int) {
        self.channels = channels
        self.frames = frames
        self.sampleRate = sampleRate
        // One block per channel, then one more: what a channel that does not exist reads.
        storage = .allocate(capacity: max(1, (channels + 1) * frames))
        storage.initialize(repeating: 0, count: max(1, (channels + 1) * frames))
    }

    deinit {
        storage.deallocate()
    }

    // MARK: - Public API

    /// The samples of `channel` (0-based), to read or write in place. A channel that does not
    /// exist (a processor written for stereo given mono) reads `frames` samples of silence, and
    /// what is written there is discarded: a processor's mistake never stops the app.
    public func rawBuffer(forChannel channel: Int) -> UnsafeMutablePointer<Float> {
        guard channel >= 0 && channel < channels else {
            let silence = storage + channels * frames
            silence.update(repeating: 0, count: frames)
            return silence
        }
        return storage + channel * frames
    }

    /// Calls `body` with the samples of `channel` as a mutable buffer.
    public func withChannel<R>(_ channel: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: rawBuffer(forChannel: channel), count: frames))
    }

    // MARK: - Internals

    /// Fills from interleaved PCM with the same channel count and at most `frames` frames.
    func load(_ pcm: AudioPCMBuffer) {
        let samples = pcm.floatSamples
        let count = min(frames, pcm.frameCount)
        for c in 0..<channels {
            let dst = storage + c * frames
            let source = min(c, pcm.channels - 1)
            for i in 0..<count { dst[i] = samples[i * pcm.channels + source] }
            for i in count..<frames { dst[i] = 0 }
        }
    }

    /// The samples as interleaved PCM (float).
    func interleaved(timestampUs: Int64?) -> AudioPCMBuffer {
        var out = [Float](repeating: 0, count: frames * channels)
        for c in 0..<channels {
            let src = storage + c * frames
            for i in 0..<frames { out[i * channels + c] = src[i] }
        }
        return AudioPCMBuffer(float32: out, sampleRate: sampleRate, channels: channels, timestampUs: timestampUs)
    }
}
