import SMeetingProtocol
import SRTC

/// The meeting's view of its SRTC channel: every remote audio track is subscribed as it appears
/// and forwarded to the engine's remote-audio renderers unless playback is muted.
// @unchecked Sendable: `engine` (weak, Sendable) is set in init and never reassigned; `forwarder` is a `let`.
final class ChannelBridge: ChannelDelegate, @unchecked Sendable {
    private weak var engine: SMeetingEngine?
    private let forwarder: RemoteAudioForwarder

    init(engine: SMeetingEngine) {
        self.engine = engine
        forwarder = RemoteAudioForwarder(engine: engine)
    }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard track.kind == .audio, let remote = channel.remoteTrack(trackId: track.id) as? RemoteAudioTrack else { return }
        remote.add(audioRenderer: forwarder)
        Task { try? await channel.subscribe(remote) }
    }

    /// An E2EE meeting's key-exchange messages travel as data on the channel (docs/e2ee.md).
    func channel(_ channel: Channel, didReceiveData message: DataMessage) {
        guard message.topic == MeetingKeyMessage.topic, !message.encrypted, let from = message.from else { return }
        engine?.receiveKeyMessage(Array(message.data), from: from, on: channel)
    }
}

/// Hands remote PCM to the app's renderers (the Linux stand-in for the speaker).
// @unchecked Sendable: its one stored property, a weak reference to the (Sendable) engine, is set in init and never reassigned.
final class RemoteAudioForwarder: AudioRenderer, @unchecked Sendable {
    private weak var engine: SMeetingEngine?

    init(engine: SMeetingEngine) { self.engine = engine }

    func render(pcmBuffer: AudioPCMBuffer) {
        guard let engine, !engine.state.withLock({ $0.remoteAudioMuted }) else { return }
        engine.remoteAudioRenderers.forEach { $0.render(pcmBuffer: pcmBuffer) }
    }
}
