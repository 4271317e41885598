import Foundation
import RTCMedia

/// A local audio track: PCM is processed by the engine's `audioCaptureProcessor`, encoded with
/// Opus in 20 ms packets and sent to every channel the track is published in.
// open (not public) only so the device tracks of `SRTCDevices` (camera, microphone, screen) can
// subclass it from their module; its initializers are `package`, so apps still cannot.
// @unchecked Sendable: not final (the SDK subclasses it), so it cannot be checked; it adds only `let`s of Sendable types.
open class LocalAudioTrack: LocalTrack, @unchecked Sendable {
    /// Encoding parameters.
    public let preset: AudioPreset
    let sendPipeline: AudioSendPipeline

    package init(desc: String, preset: AudioPreset, context: EngineContext) {
        self.preset = preset
        self.sendPipeline = AudioSendPipeline(preset: preset, context: context)
        super.init(kind: .audio, desc: desc, info: nil, context: context)
    }

    /// What the track's encoder does: packets, DTX, and the Opus in-band FEC it plans
    /// (`inbandFEC`, `expectedPacketLossPercent`), docs/sdk-srtc.md.
    public var sendStatistics: AudioSendStatistics { sendPipeline.statistics }

    package func deliver(_ buffer: AudioPCMBuffer) {
        sendPipeline.push(buffer, muted: isMuted)
    }

    override func mediaDetached() {
        sendPipeline.reset()
    }
}

/// An audio track fed by the app with PCM (background music, TTS, decoded files, a DSP engine).
/// No `startCapture()`.
///
/// ```swift
/// let track = srtc.createLocalCustomAudioTrack(desc: "bgm")
/// try await channel.publishLocalTrack(track)
/// track.pushAudioBuffer(pcmBuffer)
/// ```
// @unchecked Sendable: restates LocalAudioTrack's conformance; it adds no stored state.
public final class LocalCustomAudioTrack: LocalAudioTrack, @unchecked Sendable {
    /// Pushes PCM at any sample rate and channel count; it is converted to 48 kHz, cut into
    /// 20 ms frames and encoded on the calling thread. Push in real time (the RTP clock counts
    /// the samples pushed).
    public func pushAudioBuffer(_ buffer: AudioPCMBuffer) {
        deliver(buffer)
    }
}
