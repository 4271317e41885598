// Dynacast: which layers of a layered producer anyone receives, so its publisher can stop
// encoding the others (docs/protocol.md, `layers_needed`).

extension Producer {
    // MARK: - Dynacast

    /// The spatial indices some subscriber needs, lowest first: for each running layered consumer
    /// its preferred layer, the one the allocation holds (a bandwidth-lowered subscriber keeps
    /// receiving the lower one while its preferred may come back) and the one it forwards until a
    /// switch takes effect; for a scalable stream (VP9, AV1) every spatial layer up to those too (upper
    /// layers are predicted from lower ones). A simulcast layer that sends but has not been
    /// measured yet is kept until it has been: paused, it is costed at that measurement
    /// (`pausedLayerRate`). Nil for a producer without layers.
    func neededLayers(now: Int64) -> [Int]? {
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
        if isSimulcast {
            for stream in streams where stream.lastSendingBitrate == 0 && stream.isActive(now: now) { needed[stream.index] = true }
        }
        return needed.indices.filter { needed[$0] }
    }

    /// Records what the publisher is told (`layersNeeded`): which simulcast layers it may stop
    /// sending, and when one it stopped is asked for again (`pausedLayerRate`).
    func toldNeeded(_ layers: [Int], now: Int64) {
        reportedNeededLayers = layers
        guard isSimulcast else { return }
        for stream in streams {
            let needed = layers.contains(stream.index)
            if needed && stream.toldUnneeded { stream.neededAgainTime = now }
            stream.toldUnneeded = !needed
        }
    }

    /// How long a simulcast layer asked for again counts as coming (at its paused rate) before,
    /// still silent, it counts as unavailable, µs: the publisher hears `layers_needed` one
    /// signaling hop later and starts the layer with its next frame; a publisher that does not
    /// (dynacast off, the layer stopped for another reason) is not waited for longer than this.
    static let pausedLayerResumeGrace: Int64 = 2_000_000

    /// The rate the allocation costs simulcast layer `stream` at (0: not available), for
    /// `MediaTransport.layerBitrates`. A sending layer costs its measured rate, unless that
    /// measurement says nothing of its steady rate and an earlier one does: while dynacast stops
    /// it (the measurement decays toward 0 until the layer counts as inactive) and just after it
    /// started again (one interval, mostly its key frame). A silent layer costs
    /// `pausedLayerRate` while another layer of the producer sends (`sending`).
    func allocationRate(of stream: ProducerStream, now: Int64, sending: Bool) -> Int {
        if stream.isActive(now: now) {
            if stream.lastSendingBitrate > 0 && (stream.toldUnneeded || !stream.hasSteadyMeasurement) { return stream.lastSendingBitrate }
            return max(stream.bitrate, 1)
        }
        guard sending, let paused = pausedLayerRate(stream.index, now: now) else { return 0 }
        return max(paused, 1)
    }

    /// What simulcast layer `index` costs while it sends nothing because the publisher was told
    /// nobody needs it (dynacast), or was asked for it again less than `pausedLayerResumeGrace`
    /// ago, bits per second; nil otherwise. Such a layer is available: the allocation may target
    /// it, and targeting it asks the publisher for it again. Without that a subscriber held on
    /// the big layer could never be lowered for bandwidth while nobody else needs the small one
    /// (its target can only be a layer that counts as available, and a layer becomes needed only
    /// by being targeted). The cost is the layer's last measured rate; a layer that never sent
    /// (a publisher that starts with it off) costs an eighth of the next measured layer above it
    /// per step: a simulcast step has a quarter of the pixels or fewer, and a guess on the low
    /// side only means the layer is tried and then measured, where one on the high side would
    /// pause a subscriber that the layer would have fit.
    func pausedLayerRate(_ index: Int, now: Int64) -> Int? {
        guard isSimulcast, streams.indices.contains(index) else { return nil }
        let stream = streams[index]
        let asked = stream.neededAgainTime != .min && now - stream.neededAgainTime < Self.pausedLayerResumeGrace
        guard stream.toldUnneeded || asked else { return nil }
        if stream.lastSendingBitrate > 0 { return stream.lastSendingBitrate }
        var divisor = 1
        for above in streams[(index + 1)...] {
            divisor *= 8
            if above.lastSendingBitrate > 0 { return max(1, above.lastSendingBitrate / divisor) }
        }
        return nil
    }

    /// The descriptions of `layers` (spatial indices), best first, as the protocol names them.
    func layerNames(_ layers: [Int]) -> [String] {
        layers.reversed().map { isSimulcast ? streams[$0].layerName : spatialLayerName($0) }
    }
}
