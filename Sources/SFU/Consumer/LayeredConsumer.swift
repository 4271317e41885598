/// A consumer whose layer the transport's allocation chooses (`MediaTransport.allocateLayers`):
/// `SimulcastConsumer` (one of several streams) and `SVCConsumer` (spatial layers of one
/// stream). Layers are spatial indices, 0 the lowest.
protocol LayeredConsumer: Consumer {
    /// The subscriber's choice (`subscribe` / `set_layer`).
    var preferredLayer: Int { get }
    /// Paused by the allocation: the budget cannot carry the lowest layer.
    var isPausedForBandwidth: Bool { get }
    /// The layer the allocation holds now: the target, else the one being forwarded.
    var heldLayer: Int? { get }
    /// The layer being forwarded now (until a switch to the target takes effect), if any.
    var forwardedLayer: Int? { get }
    func setPreferred(_ layer: Int)
    func setTarget(_ layer: Int?, cause: LayerSwitchCause, now: Int64, dropCurrent: Bool)
    func pauseForBandwidth(now: Int64)
    /// Each layer's bitrate for the allocator, lowest first (0 = not active).
    func layerBitrates(now: Int64) -> [Int]
}

extension SimulcastConsumer: LayeredConsumer {
    var heldLayer: Int? { targetLayer ?? currentLayer }
    var forwardedLayer: Int? { currentLayer }

    func layerBitrates(now: Int64) -> [Int] { MediaTransport.layerBitrates(self, now: now) }
}
