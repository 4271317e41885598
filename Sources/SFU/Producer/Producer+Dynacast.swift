// Dynacast: which layers of a layered producer anyone receives, so its publisher can stop
// encoding the others (docs/protocol.md, `layers_needed`).

extension Producer {
    // MARK: - Dynacast

    /// The spatial indices some subscriber needs, lowest first: for each running layered consumer
    /// its preferred layer, the one the allocation holds (a bandwidth-lowered subscriber keeps
    /// receiving the lower one while its preferred may come back) and the one it forwards until a
    /// switch takes effect; for a scalable stream (VP9, AV1) every spatial layer up to those too (upper
    /// layers are predicted from lower ones). Nil for a producer without layers.
    func neededLayers() -> [Int]? {
        let count = isSimulcast ? streams.count : isScalable ? max(spatialLayerNames.count, spatialLayers.count) : 0
        guard count > 1 else { return nil }
        var needed = [Bool](repeating: false, count: count)
        for consumer in consumers where !consumer.closed && !consumer.paused {
            guard let layered = consumer as? any LayeredConsumer else { continue }
            for layer in [layered.preferredLayer, layered.heldLayer, layered.forwardedLayer].compactMap({ $0 }) {
                let index = min(max(layer, 0), count - 1)
                if isScalable {
                    for below in 0 ... index { needed[below] = true }
                } else {
                    needed[index] = true
                }
            }
        }
        return needed.indices.filter { needed[$0] }
    }

    /// The descriptions of `layers` (spatial indices), best first, as the protocol names them.
    func layerNames(_ layers: [Int]) -> [String] {
        layers.reversed().map { isSimulcast ? streams[$0].layerName : spatialLayerName($0) }
    }
}
