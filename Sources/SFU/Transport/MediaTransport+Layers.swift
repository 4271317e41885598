// Layer choice (simulcast, SVC, a single stream's one layer) for the consumers of one subscriber
// transport, from the transport's bandwidth estimate (REMB and/or transport-cc) and each layer's
// measured bitrate: the transport gathers the signals, `LayerAllocator` decides, the transport
// applies targets and runs probes.

extension MediaTransport {
    /// Transport-cc estimates are trusted only after this long of feedback, µs.
    static let estimatorWarmUp: Int64 = 2_000_000
    /// How long after a simulcast producer's first packet a consumer waits for its preferred
    /// layer to start rather than take a higher one that happened to start first, µs.
    static let layerStartupGrace: Int64 = 2_000_000

    /// The bandwidth estimate layer choice uses: REMB at once (or what a probe proved to a
    /// REMB-only receiver, `BandwidthEstimator.rembEstimate`), transport-cc after its warm-up.
    func usableEstimate(now: Int64) -> Int? {
        let warm = firstFeedbackTime != .min && now - firstFeedbackTime >= Self.estimatorWarmUp
        if bandwidth.rembBitrate == nil && !warm { return nil }
        if !warm, let remb = bandwidth.rembEstimate { return remb }
        return bandwidth.estimate
    }

    /// Re-chooses the target layer of every layered consumer (simulcast; VP9 and AV1 SVC, spatial and
    /// temporal; single-stream video, one layer that is sent or paused), and starts or stops a probe.
    /// - Parameter cause: reported if a consumer's target changes.
    func allocateLayers(now: Int64, cause: LayerSwitchCause) {
        var simulcast: [any LayeredConsumer] = []
        var fixed = 0
        var reportedLoss = 0.0
        for consumer in consumers where !consumer.closed && !consumer.paused {
            if let consumer = consumer as? any LayeredConsumer, consumer.isAllocated {
                simulcast.append(consumer)
            } else if !consumer.producer.muted {
                fixed += consumer.producer.streams.first?.bitrate ?? 0
            }
            if consumer.report.receivedAt != .min, now - consumer.report.receivedAt < 2_000_000 {
                reportedLoss = max(reportedLoss, Double(consumer.report.fractionLost) / 256)
            }
        }
        guard !simulcast.isEmpty else {
            stopProbe()
            updatePacingRate(estimate: usableEstimate(now: now), probeRate: nil)
            return
        }
        let transportCC = firstFeedbackTime != .min
        // Without transport-cc a probe is judged on the receiver's REMB and reports
        // (`REMBProbeEvidence`): the rate it sent once they showed no queue for long enough, and
        // the round trip's rise during it as its queueing delay (it stops the probe). Loss or a
        // falling REMB during it stops it too, as reported loss: its own padding keeps a REMB
        // receiver's estimate rising on a link it overfills, and would keep it going.
        let rembProbe = transportCC ? nil : bandwidth.rembProbe
        if let failure = rembProbe?.failure, failure != "delay" { reportedLoss = 1 }
        let signals = LayerAllocator.Signals(
            estimate: usableEstimate(now: now),
            fixed: Int(Double(fixed) * (1 + allocator.configuration.overhead)),
            lossRate: transportCC ? bandwidth.lastLossRate : 0,
            queueDelay: transportCC ? bandwidth.lastQueueDelay : rembProbe?.roundTripRise ?? 0,
            lossQueueDelay: transportCC ? bandwidth.lastLossQueueDelay : nil,
            overusing: transportCC ? bandwidth.overusing : bandwidth.rembDropping(now: now),
            probeDelivered: transportCC ? bandwidth.probeDelivered : rembProbe?.proven(now: now, bytesSent: counters.bytesSent),
            reportedLoss: reportedLoss, transportCC: transportCC)
        // Consumers that can drop temporal layers (VP9, AV1 SVC) are allocated on their ladder of
        // (spatial, temporal) steps: a lower frame rate of a spatial layer comes before a lower
        // spatial layer. Their preference is the top temporal layer of the preferred spatial one.
        let temporal = simulcast.map { max(1, $0.temporalLayers) }
        let demands = simulcast.enumerated().map { index, consumer in
            let t = temporal[index]
            let held = consumer.isPausedForBandwidth ? nil : consumer.heldLayer
            return LayerAllocator.Demand(
                id: ObjectIdentifier(consumer).hashValue,
                preferred: consumer.preferredLayer.multipliedReportingOverflow(by: t).partialValue + t - 1,
                current: held.map { $0 * t + min(max(consumer.heldTemporalLayer, 0), t - 1) },
                layerBitrates: consumer.ladderBitrates(now: now), paused: consumer.isPausedForBandwidth,
                temporalLayers: t)
        }
        let decision = allocator.update(now: now, signals: signals, demands: demands)
        if let accepted = decision.acceptedEstimate {
            if transportCC { bandwidth.acceptProbe(accepted) } else { bandwidth.acceptREMBProbe(accepted) }
        }
        for (index, consumer) in simulcast.enumerated() {
            if decision.paused[index] {
                consumer.pauseForBandwidth(now: now)
                continue
            }
            // No layer measured yet (the subscription just started): keep the requested one.
            guard let target = decision.targets[index] else { continue }
            let t = temporal[index]
            if t > 1 { consumer.setTemporalTarget(target % t, now: now) }
            consumer.setTarget(target / t, cause: cause, now: now, dropCurrent: decision.congested)
        }
        switch decision.probeOutcome {
        case .started?: counters.probesStarted += 1
        case .succeeded?: counters.probesSucceeded += 1
        case .failed?: counters.probesFailed += 1
        case nil: break
        }
        if decision.probeContinued != nil { counters.probesStarted += 1 }
        if let rate = decision.probeRate {
            startProbe(rate: rate, now: now, measuringAfresh: decision.probeContinued != nil)
        } else {
            stopProbe()
        }
        updatePacingRate(estimate: signals.estimate, probeRate: decision.probeRate)
    }

    /// Each layer's bitrate for the allocator (0 = not active). While a young producer's layers
    /// are still starting, layers above the consumer's preferred one count as inactive when the
    /// preferred one (or one below it) has not sent yet: a `camera_small` subscriber is not served
    /// `camera_big` just because that stream's first packets came a moment earlier. A layer that
    /// sends nothing because dynacast paused it at the publisher counts at its last rate while
    /// another layer of the producer sends (`Producer.allocationRate`): targeting it asks for it
    /// again.
    static func layerBitrates(_ consumer: SimulcastConsumer, now: Int64) -> [Int] {
        let producer = consumer.producer
        let streams = producer.streams
        let preferred = min(max(consumer.preferredLayer, 0), streams.count - 1)
        let started = streams.lazy.map(\.firstPacketTime).filter { $0 != .min }.min()
        let waiting = preferred >= 0 && streams[...preferred].contains { $0.firstPacketTime == .min }
            && (started.map { now - $0 < layerStartupGrace } ?? true)
        let sending = streams.contains { $0.isActive(now: now) }
        return streams.enumerated().map { index, stream in
            if waiting && index > preferred { return 0 }
            return producer.allocationRate(of: stream, now: now, sending: sending)
        }
    }
}
