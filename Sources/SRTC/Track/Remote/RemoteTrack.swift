import Foundation
import RTCNet
import RTCWire
import SRTCProtocol
import Synchronization

/// Another user's track in a channel. Subscribe with `Channel.subscribe(_:layer:)` to receive it.
// @unchecked Sendable: not final (the SDK subclasses it), so it cannot be checked; its own state is `let`s, a Mutex, a CallbackSlot and a WeakList.
public class RemoteTrack: Track, @unchecked Sendable {
    /// The publisher's uid.
    public let uid: String
    /// The server-assigned id.
    public let id: String
    private let subscription = Mutex<Subscription>(Subscription())
    /// Reads the receiver's counters; set while a receiver is bound.
    let statisticsSource = CallbackSlot<@Sendable () -> RTPReceiveStatistics>()
    private let encodedRenderers = WeakList<EncodedFrameRenderer>()

    struct Subscription {
        var subscribed = false
        var layer: VideoLayer?
    }

    init(info: TrackInfo, context: EngineContext) {
        self.uid = info.uid
        self.id = info.id
        super.init(kind: info.kind, desc: info.desc, info: info, context: context)
    }

    /// Whether this app subscribed to the track.
    public var isSubscribed: Bool { subscription.withLock { $0.subscribed } }

    /// The simulcast layer asked for (nil: the best one, or not simulcast).
    public var requestedLayer: VideoLayer? { subscription.withLock { $0.layer } }

    /// What was received since the subscription's receiver was bound; nil before.
    public var receiveStatistics: ReceiveStatistics? {
        guard let source = statisticsSource.function else { return nil }
        return source().publicStatistics(framesDecoded: decodedFrameCount)
    }

    /// Frames decoded, for the statistics (overridden by the media subclasses).
    var decodedFrameCount: Int { 0 }

    /// Whether the track has simulcast layers.
    public var isSimulcast: Bool { (info?.layers.count ?? 0) > 1 }

    /// Adds a receiver of the compressed frames (held weakly), called on the track's receive thread.
    public func add(encodedFrameRenderer: EncodedFrameRenderer) { encodedRenderers.add(encodedFrameRenderer) }

    /// Removes a receiver of the compressed frames.
    public func remove(encodedFrameRenderer: EncodedFrameRenderer) { encodedRenderers.remove(encodedFrameRenderer) }

    /// Whether someone takes the compressed frames.
    var hasEncodedRenderers: Bool { !encodedRenderers.isEmpty }

    /// Hands a compressed frame to the encoded renderers.
    func deliverEncoded(_ frame: EncodedMediaFrame) {
        encodedRenderers.forEach { $0.render(encodedFrame: frame) }
    }

    /// Whether the receiver decodes: someone takes decoded media, or nobody takes compressed frames.
    var needsDecoding: Bool { hasDecodedRenderers || !hasEncodedRenderers }

    /// Whether decoded-media renderers are attached (overridden by the media subclasses).
    var hasDecodedRenderers: Bool { false }

    // MARK: - Internals

    func setSubscribed(_ subscribed: Bool, layer: VideoLayer?) {
        subscription.withLock {
            $0.subscribed = subscribed
            $0.layer = subscribed ? layer : nil
        }
        if subscribed { subscriptionStarted() } else { subscriptionEnded() }
    }

    func setRequestedLayer(_ layer: VideoLayer?) {
        subscription.withLock { $0.layer = layer }
    }

    /// Hooks for the media subclasses.
    func subscriptionStarted() {}
    func subscriptionEnded() { unbind() }
}
