import Foundation
import RTCMedia
import RTCNet
import Synchronization

/// A remote audio track. Add `AudioRenderer`s to observe its decoded PCM (transcription,
/// recording). The engine's `audioRenderProcessor` runs before the renderers; while the engine
/// plays audio (`startAudioPlayback`), the track is also mixed into the speaker.
// @unchecked Sendable: restates RemoteTrack's conformance; its own state is in a WeakList, a Mutex and a CallbackSlot.
public final class RemoteAudioTrack: RemoteTrack, @unchecked Sendable {
    private let renderers = WeakList<AudioRenderer>()
    private let counters = Mutex(Counters())

    struct Counters {
        var framesDecoded = 0
        var level: UInt8 = 127
    }

    // MARK: - Public API

    /// Adds a renderer (held weakly), called on the track's receive thread with 20 ms of PCM.
    public func add(audioRenderer: AudioRenderer) { renderers.add(audioRenderer) }

    /// Removes a renderer.
    public func remove(audioRenderer: AudioRenderer) { renderers.remove(audioRenderer) }

    /// 20 ms frames decoded since subscribing (concealed losses included).
    public var framesDecoded: Int { counters.withLock { $0.framesDecoded } }

    /// The sender's last RFC 6464 audio level (-dBov, 127 = silence).
    public var audioLevel: UInt8 { counters.withLock { $0.level } }

    override var decodedFrameCount: Int { framesDecoded }

    /// Reads the receiver's playout counters (packets played, ticks concealed), how many lost
    /// packets a NACK brought back in time and how many a RED block (RFC 2198) rebuilt; set while
    /// a receiver is bound.
    let playoutSource = CallbackSlot<@Sendable () -> AudioPlayoutCounters>()

    /// The playout counters, nil before a receiver is bound (tests and diagnostics).
    package var playoutCounters: AudioPlayoutCounters? { playoutSource.function?() }

    override var hasDecodedRenderers: Bool { !renderers.isEmpty }

    // MARK: - Internals

    /// - Parameter senderPause: media time (48 kHz samples) the sender skipped before it.
    package func deliver(_ buffer: AudioPCMBuffer, senderPause: Int = 0) {
        counters.withLock { $0.framesDecoded += 1 }
        renderers.forEach { $0.render(pcmBuffer: buffer) }
        context.devices.remoteAudio(ObjectIdentifier(self), buffer, senderPause: senderPause)
    }

    func setLevel(_ level: UInt8) {
        counters.withLock { $0.level = level }
    }

    override func subscriptionStarted() {
        counters.withLock { $0 = Counters() }
    }
}
