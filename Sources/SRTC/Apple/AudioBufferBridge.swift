#if canImport(AVFoundation)
import AVFoundation
import RTCMedia

/// `AVAudioPCMBuffer` ↔ `AudioPCMBuffer` on Apple platforms (float or 16-bit, interleaved or not).
package enum AudioBufferBridge {
    package static func pcm(from buffer: AVAudioPCMBuffer) -> AudioPCMBuffer? {
        let format = buffer.format
        let channels = Int(format.channelCount), frames = Int(buffer.frameLength)
        guard channels > 0, frames > 0 else { return nil }
        var samples = [Float](repeating: 0, count: frames * channels)
        if let data = buffer.floatChannelData {
            for c in 0..<channels {
                for i in 0..<frames {
                    samples[i * channels + c] = format.isInterleaved ? data[0][i * channels + c] : data[c][i]
                }
            }
        } else if let data = buffer.int16ChannelData {
            for c in 0..<channels {
                for i in 0..<frames {
                    let value = format.isInterleaved ? data[0][i * channels + c] : data[c][i]
                    samples[i * channels + c] = Float(value) / 32_768
                }
            }
        } else {
            return nil
        }
        return AudioPCMBuffer(float32: samples, sampleRate: Int(format.sampleRate), channels: channels)
    }

    package static func avBuffer(from pcm: AudioPCMBuffer) -> AVAudioPCMBuffer? {
        guard let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: Double(pcm.sampleRate),
                                         channels: AVAudioChannelCount(pcm.channels), interleaved: false),
              let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(pcm.frameCount)),
              let data = buffer.floatChannelData else { return nil }
        buffer.frameLength = AVAudioFrameCount(pcm.frameCount)
        let samples = pcm.floatSamples
        for c in 0..<pcm.channels {
            for i in 0..<pcm.frameCount { data[c][i] = samples[i * pcm.channels + c] }
        }
        return buffer
    }
}

extension LocalCustomAudioTrack {
    /// Pushes an `AVAudioPCMBuffer` (float or 16-bit, any rate and channel count).
    public func pushAudioBuffer(_ buffer: AVAudioPCMBuffer) {
        guard let pcm = AudioBufferBridge.pcm(from: buffer) else { return }
        pushAudioBuffer(pcm)
    }
}
#endif
