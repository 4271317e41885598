import RTCMedia

/// Converts interleaved PCM to 48 kHz with a fixed channel count: linear interpolation across
/// buffers (the fractional position and last input frame are kept), channels averaged down or
/// duplicated up. Good enough for speech and test tones; pushing 48 kHz skips interpolation.
package struct AudioResampler: Sendable {
    let outputRate: Int
    let outputChannels: Int
    /// Position of the next output frame, in input frames relative to the current buffer's start.
    private var position: Double = 0
    /// The previous buffer's last frame (per output channel), the left neighbour of position < 0.
    private var previous: [Float]?
    private var inputRate: Int?

    package init(outputRate: Int = 48_000, outputChannels: Int) {
        self.outputRate = outputRate
        self.outputChannels = outputChannels
    }

    /// Returns interleaved float samples at `outputRate` with `outputChannels`.
    package mutating func process(_ buffer: AudioPCMBuffer) -> [Float] {
        let mixed = Self.remix(buffer.floatSamples, from: buffer.channels, to: outputChannels)
        let frames = mixed.count / outputChannels
        guard frames > 0 else { return [] }
        if inputRate != buffer.sampleRate {
            inputRate = buffer.sampleRate
            position = 0
            previous = nil
        }
        if buffer.sampleRate == outputRate { return mixed }
        let step = Double(buffer.sampleRate) / Double(outputRate)
        var out: [Float] = []
        out.reserveCapacity(Int(Double(frames) / step + 2) * outputChannels)
        func sample(_ frame: Int, _ channel: Int) -> Float {
            if frame < 0 { return previous?[channel] ?? mixed[channel] }
            return mixed[min(frame, frames - 1) * outputChannels + channel]
        }
        while position < Double(frames - 1) {
            let base = Int(position.rounded(.down))
            let fraction = Float(position - Double(base))
            for c in 0..<outputChannels {
                let a = sample(base, c), b = sample(base + 1, c)
                out.append(a + (b - a) * fraction)
            }
            position += step
        }
        position -= Double(frames)
        previous = Array(mixed[(frames - 1) * outputChannels ..< frames * outputChannels])
        return out
    }

    static func remix(_ samples: [Float], from input: Int, to output: Int) -> [Float] {
        guard input != output else { return samples }
        let frames = samples.count / input
        var out = [Float](repeating: 0, count: frames * output)
        for f in 0..<frames {
            if output == 1 {
                var sum: Float = 0
                for c in 0..<input { sum += samples[f * input + c] }
                out[f] = sum / Float(input)
            } else {
                for c in 0..<output { out[f * output + c] = samples[f * input + min(c, input - 1)] }
            }
        }
        return out
    }
}
