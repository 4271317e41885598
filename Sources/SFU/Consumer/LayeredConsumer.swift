/// A consumer whose layer the transport's allocation chooses (`MediaTransport.allocateLayers`):
/// `SimulcastConsumer` (one of several streams), `SVCConsumer` (spatial and temporal layers of
/// one stream) and a video `SimpleConsumer` (one layer: sent or paused for bandwidth). Layers are spatial indices, 0 the lowest; a consumer that can also drop temporal
/// layers says how many there are (`temporalLayers`), and the allocation then works on the ladder
/// of (spatial, temporal) pairs, `spatial * temporalLayers + temporal`.
protocol LayeredConsumer: Consumer {
    /// Whether the allocation chooses for it (false: an audio `SimpleConsumer`, a fixed cost).
    var isAllocated: Bool { get }
    /// The subscriber's choice (`subscribe` / `set_layer`).
    var preferredLayer: Int { get }
    /// Paused by the allocation: the budget cannot carry the lowest layer.
    var isPausedForBandwidth: Bool { get }
    /// The layer the allocation holds now: the target, else the one being forwarded.
    var heldLayer: Int? { get }
    /// The layer being forwarded now (until a switch to the target takes effect), if any.
    var forwardedLayer: Int? { get }
    /// Temporal layers per spatial layer the allocation may choose among (1: it does not drop
    /// temporal layers for bandwidth).
    var temporalLayers: Int { get }
    /// The temporal layer the allocation holds now, 0 the lowest (`temporalLayers - 1`: all).
    var heldTemporalLayer: Int { get }
    func setPreferred(_ layer: Int)
    func setTarget(_ layer: Int?, cause: LayerSwitchCause, now: Int64, dropCurrent: Bool)
    /// Sets the highest temporal layer to forward (`temporalLayers - 1` or more: all).
    func setTemporalTarget(_ temporal: Int, now: Int64)
    func pauseForBandwidth(now: Int64)
    /// Each layer's bitrate for the allocator, lowest first (0 = not active).
    func layerBitrates(now: Int64) -> [Int]
    /// Each ladder step's bitrate for the allocator, `spatial * temporalLayers + temporal`
    /// (0 = not active); `layerBitrates` when `temporalLayers` is 1.
    func ladderBitrates(now: Int64) -> [Int]
}

extension LayeredConsumer {
    var isAllocated: Bool { true }
    var temporalLayers: Int { 1 }
    var heldTemporalLayer: Int { 0 }
    func setTemporalTarget(_ temporal: Int, now: Int64) {}
    func ladderBitrates(now: Int64) -> [Int] { layerBitrates(now: now) }
}

extension SimulcastConsumer: LayeredConsumer {
    var heldLayer: Int? { targetLayer ?? currentLayer }
    var forwardedLayer: Int? { currentLayer }

    func layerBitrates(now: Int64) -> [Int] { MediaTransport.layerBitrates(self, now: now) }
}
