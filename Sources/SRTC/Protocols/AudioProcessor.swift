#if canImport(AVFoundation)
import AVFoundation
#endif

/// Processes audio in place: after capture (`SRTCEngine.audioCaptureProcessor`, every local
/// audio track) or before playback (`SRTCEngine.audioRenderProcessor`, every remote audio
/// track). A global capability, not a per-track one.
///
/// ```swift
/// final class MyAudioProcessor: NSObject, AudioProcessor {
///     func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int) {}
///     func audioProcessingProcess(audioBuffer: AudioBuffer) {
///         // modify the Float samples in place
///     }
///     func audioProcessingRelease() {}
/// }
/// srtc.audioCaptureProcessor = MyAudioProcessor()
/// ```
///
/// Calls come from one media thread at a time; `audioProcessingInitialize` runs before the first
/// buffer and again whenever the format changes, `audioProcessingRelease` when the processor is
/// replaced or the engine destroyed.
public protocol AudioProcessor: AnyObject {
    /// The format of the buffers that follow.
    func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int)
    /// One buffer (20 ms in the SDK) to modify in place.
    func audioProcessingProcess(audioBuffer: AudioBuffer)
    /// No more buffers will come.
    func audioProcessingRelease()
}

extension AudioProcessor {
    public func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int) {}
    public func audioProcessingRelease() {}
}

/// Observes the PCM of a remote audio track (after `audioRenderProcessor`), for example to
/// transcribe or record it. It cannot change the audio; use `AudioProcessor` for that.
/// Add it with `remoteAudioTrack.add(audioRenderer:)`; it is held weakly.
///
/// On Apple platforms implement either `render(pcmBuffer: AVAudioPCMBuffer)` (as documented) or
/// the portable `render(pcmBuffer: AudioPCMBuffer)`; each has a default implementation.
public protocol AudioRenderer: AnyObject {
    /// 20 ms of decoded audio, 48 kHz, interleaved. Called on the track's media thread.
    func render(pcmBuffer: AudioPCMBuffer)
    #if canImport(AVFoundation)
    /// 20 ms of decoded audio as an `AVAudioPCMBuffer` (float, non-interleaved).
    func render(pcmBuffer: AVAudioPCMBuffer)
    #endif
}

#if canImport(AVFoundation)
extension AudioRenderer {
    /// Converts and calls `render(pcmBuffer: AVAudioPCMBuffer)`.
    public func render(pcmBuffer: AudioPCMBuffer) {
        if let buffer = AudioBufferBridge.avBuffer(from: pcmBuffer) { render(pcmBuffer: buffer) }
    }

    public func render(pcmBuffer: AVAudioPCMBuffer) {}
}
#endif
