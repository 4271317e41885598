import Foundation
import RTCMedia
import RTCNet
import Synchronization

/// A remote video track. Add renderers to get its decoded frames; watch
/// `channel(_:didChangeReceiveStreamStatus:)` or `isReceiveTimedOut` for stalls.
// @unchecked Sendable: restates RemoteTrack's conformance; its own state is in a WeakList, Mutexes and a CallbackSlot.
public final class RemoteVideoTrack: RemoteTrack, @unchecked Sendable {
    private let renderers = WeakList<VideoRenderer>()
    private let monitor: Mutex<ReceiveTimeoutMonitor>
    private let counters = Mutex(Counters())
    /// Adaptive stream's rules for this video (used when the engine's `adaptiveStream` is on).
    private let adaptive = Mutex(AdaptiveStream())
    /// Reports receive-status changes to the channel (set by the channel).
    let statusHandler = CallbackSlot<@Sendable (RemoteVideoTrack, Bool) -> Void>()

    struct Counters {
        var framesDecoded = 0
        var lastWidth = 0
        var lastHeight = 0
        var layer: String?
        var adaptivePaused = false
    }

    init(info: TrackInfo, context: EngineContext, receiveTimeout: Double) {
        monitor = Mutex(ReceiveTimeoutMonitor(timeout: receiveTimeout))
        super.init(info: info, context: context)
    }

    // MARK: - Public API

    /// Adds a renderer (held weakly); it is called on the track's receive thread with every decoded frame.
    public func add(videoRenderer: VideoRenderer) { renderers.add(videoRenderer) }

    /// Removes a renderer.
    public func remove(videoRenderer: VideoRenderer) { renderers.remove(videoRenderer) }

    /// True while no frame arrived for the engine's receive timeout (subscribed and unmuted only).
    public var isReceiveTimedOut: Bool { monitor.withLock { $0.isTimedOut } }

    /// Frames decoded since subscribing.
    public var framesDecoded: Int { counters.withLock { $0.framesDecoded } }

    /// The size of the last decoded frame.
    public var frameSize: (width: Int, height: Int) { counters.withLock { ($0.lastWidth, $0.lastHeight) } }

    /// The simulcast layer the server currently forwards (from `didSwitchLayer`), when known;
    /// `none` while it sends no video for lack of bandwidth.
    public var currentLayer: String? { counters.withLock { $0.layer } }

    /// Whether the server paused this video because my bandwidth cannot carry its smallest layer
    /// (`didSwitchLayer` with layer `none`); it resumes by itself when the link allows.
    public var isPausedForBandwidth: Bool { currentLayer == LayerSwitchedInfo.pausedLayer }

    /// With adaptive stream: whether the video is paused at the server because no renderer shows it
    /// (`SizedVideoRenderer.shownSize` nil for each). Nothing of it is forwarded, and it reports no
    /// receive timeout; a renderer that shows it again resumes it.
    public var isAdaptivePaused: Bool { counters.withLock { $0.adaptivePaused } }

    override var decodedFrameCount: Int { framesDecoded }

    override var hasDecodedRenderers: Bool { !renderers.isEmpty }

    // MARK: - Internals

    /// A decoded frame: renderers, counters, the receive-timeout monitor.
    package func deliver(_ frame: VideoFrame) {
        counters.withLock {
            $0.framesDecoded += 1
            $0.lastWidth = frame.width
            $0.lastHeight = frame.height
        }
        renderers.forEach { $0.render(frame: frame) }
        let change = monitor.withLock { $0.frameArrived(now: Monotonic.seconds()) }
        if let change { report(change) }
    }

    /// A frame arrived that is not decoded (only encoded renderers): it still counts as received.
    func frameArrivedUndecoded() {
        let change = monitor.withLock { $0.frameArrived(now: Monotonic.seconds()) }
        if let change { report(change) }
    }

    /// The channel's periodic check.
    func tick(now: Double) {
        let change = monitor.withLock { $0.tick(now: now) }
        if let change { report(change) }
    }

    /// What the renderers need now: the shown widths of the sized ones; a renderer that is not sized
    /// (or an encoded-frame renderer) needs every frame.
    func adaptiveDemand() -> AdaptiveStream.Demand {
        var demand = AdaptiveStream.Demand(needsEverything: hasEncodedRenderers)
        renderers.forEach { renderer in
            if let sized = renderer as? SizedVideoRenderer {
                if let size = sized.shownSize, size.width > 0, size.height > 0 { demand.shownWidths.append(size.width) }
            } else {
                demand.needsEverything = true
            }
        }
        return demand
    }

    /// The channel's tick under adaptive stream: the choice to request now, if any.
    func adaptiveTick() -> AdaptiveLayerChoice? {
        let demand = adaptiveDemand()
        let layers = info?.layers ?? []
        return adaptive.withLock { $0.tick(layers: layers, demand: demand) }
    }

    /// An adaptive choice is being requested: a pause stops the receive-timeout monitor, a resume
    /// starts it again.
    func adaptiveChoiceSent(_ choice: AdaptiveLayerChoice) {
        let paused = choice == .paused
        let changed = counters.withLock { c -> Bool in defer { c.adaptivePaused = paused }; return c.adaptivePaused != paused }
        guard changed, isSubscribed else { return }
        let muted = isMuted
        monitor.withLock { m in if paused || muted { m.stop() } else { m.start(now: Monotonic.seconds()) } }
    }

    /// The request for `choice` failed: the next tick asks again.
    func adaptiveRequestFailed(_ choice: AdaptiveLayerChoice) {
        adaptive.withLock { $0.requestFailed(choice) }
    }

    func setCurrentLayer(_ layer: String) {
        counters.withLock { $0.layer = layer }
    }

    override func subscriptionStarted() {
        counters.withLock { $0 = Counters() }
        adaptive.withLock { $0.reset() }
        let muted = isMuted
        monitor.withLock { m in if muted { m.stop() } else { m.start(now: Monotonic.seconds()) } }
    }

    override func subscriptionEnded() {
        super.subscriptionEnded()
        adaptive.withLock { $0.reset() }
        counters.withLock { $0.adaptivePaused = false }
        monitor.withLock { $0.stop() }
    }

    override func update(info: TrackInfo) {
        let wasMuted = isMuted
        super.update(info: info)
        guard wasMuted != info.muted, isSubscribed, !isAdaptivePaused else { return }
        monitor.withLock { m in if info.muted { m.stop() } else { m.start(now: Monotonic.seconds()) } }
    }

    private func report(_ timedOut: Bool) {
        statusHandler.function?(self, timedOut)
    }
}
