// Simulcast layer choice for the consumers of one subscriber transport, from the transport's
// bandwidth estimate (REMB and/or transport-cc) and each layer's measured bitrate.

extension MediaTransport {
    /// How long after a bandwidth downgrade a consumer is not raised again, µs.
    static let upgradeHoldAfterDowngrade: Int64 = 5_000_000
    /// Transport-cc estimates are trusted only after this long of feedback, µs.
    static let estimatorWarmUp: Int64 = 2_000_000

    /// The bandwidth estimate layer choice uses: REMB at once, transport-cc after its warm-up.
    func usableEstimate(now: Int64) -> Int? {
        let warm = firstFeedbackTime != .min && now - firstFeedbackTime >= Self.estimatorWarmUp
        if bandwidth.rembBitrate == nil && !warm { return nil }
        if !warm, let remb = bandwidth.rembBitrate { return Int(remb) }
        return bandwidth.estimate
    }

    /// Re-chooses the target layer of every simulcast consumer.
    /// - Parameter cause: reported if a consumer's target changes.
    func allocateLayers(now: Int64, cause: LayerSwitchCause) {
        var simulcast: [SimulcastConsumer] = []
        var fixed = 0
        for consumer in consumers where !consumer.closed && !consumer.paused {
            if let consumer = consumer as? SimulcastConsumer {
                simulcast.append(consumer)
            } else if !consumer.producer.muted {
                fixed += consumer.producer.streams.first?.bitrate ?? 0
            }
        }
        guard !simulcast.isEmpty else { return }
        let budget = usableEstimate(now: now).map { max(0, $0 - fixed) }
        let demands = simulcast.map { consumer in
            LayerAllocator.Demand(
                preferred: consumer.preferredLayer, current: consumer.currentLayer,
                layerBitrates: consumer.producer.streams.map { $0.isActive(now: now) ? max($0.bitrate, 1) : 0 },
                holdUpgrade: consumer.lastBandwidthDowngrade != .min
                    && now - consumer.lastBandwidthDowngrade < Self.upgradeHoldAfterDowngrade)
        }
        let targets = LayerAllocator().allocate(budget: budget, demands: demands)
        for (consumer, target) in zip(simulcast, targets) {
            // No layer measured yet (the subscription just started): keep the requested one.
            guard let target else { continue }
            consumer.setTarget(target, cause: cause, now: now)
        }
    }
}
