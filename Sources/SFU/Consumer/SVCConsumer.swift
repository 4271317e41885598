import RTCMedia
import RTCWire

/// Forwards one scalable stream (SVC) with the spatial and temporal layers one subscriber gets,
/// without renegotiation: VP9 (RFC 9628) by its payload descriptor with `VP9LayerSelector`, AV1
/// by its Dependency Descriptor (av1-rtp-spec Appendix A) with `AV1LayerSelector`. The selector
/// decides per packet; this class sends what it keeps, rewritten like any consumer's (SSRC,
/// gap-free sequence numbers from `SeqManager`: a dropped layer leaves no hole a receiver would
/// NACK). VP9 picture ids and TL0PICIDX, and AV1 frame numbers, go unchanged (one stream: they are
/// continuous already, and receivers place frames by them); an AV1 subscriber's descriptors say
/// which decode targets it gets (§A.4).
///
/// The target spatial layer is the subscriber's preferred one, lowered and raised by the
/// transport's allocation (`LayerAllocator`, as for simulcast), and never above the layers the
/// stream carries (`SpatialLayerMeter.count`); the allocation also lowers the temporal layer
/// (frame rate) when the budget is short, before it lowers the spatial one. While the selector waits for a frame where it can
/// switch (a key picture with `L3T3_KEY`), the publisher is asked for a key frame, and again every
/// second; also at once when the decode target being forwarded goes off at the publisher (its
/// descriptors' active decode targets mask: dynacast paused that spatial layer) and the one it
/// falls to starts at a key frame. Each change of the layer being forwarded is a `layerSwitched`
/// event. I/O thread only.
final class SVCConsumer: Consumer {
    private(set) var preferredLayer: Int
    private(set) var targetLayer: Int?
    private(set) var isPausedForBandwidth = false
    /// The highest temporal layer to forward, set by the allocation; nil: all.
    private(set) var targetTemporalLayer: Int?
    /// AV1 with the Dependency Descriptor; else VP9.
    private let isAV1: Bool
    private var vp9: VP9LayerSelector
    private var av1: AV1LayerSelector
    private var targetCause: LayerSwitchCause = .requested
    private var lastKeyFrameAsk: Int64 = 0
    /// The next layer forwarded ends a pause for bandwidth (its event names `none` as the previous).
    private var resuming = false

    init(id: ConsumerID, participant: ParticipantID, transport: MediaTransport, producer: Producer,
         parameters: RTPParameters, ssrc: UInt32, paused: Bool, preferredLayer: Int) throws(SFUError) {
        self.preferredLayer = preferredLayer
        isAV1 = producer.isAV1
        vp9 = VP9LayerSelector(targetSpatial: nil)
        av1 = AV1LayerSelector(targetSpatial: nil)
        if let structure = producer.streams.first?.dependencyDescriptors?.structure { av1.learn(structure) }
        try super.init(id: id, participant: participant, transport: transport, producer: producer,
                       parameters: parameters, ssrc: ssrc, paused: paused)
    }

    /// The producer's one stream: key frames are asked for on it.
    override var currentLayer: Int? { 0 }

    /// The spatial layer being forwarded now.
    var currentSpatialLayer: Int? { isAV1 ? av1.currentSpatial : vp9.currentSpatial }

    /// Whether the selector waits for a frame where it can reach its target (a key picture with
    /// `L3T3_KEY`): the publisher is asked for one.
    private var waitsForKeyFrame: Bool {
        guard !paused, targetLayer != nil else { return false }
        if isAV1 {
            return av1.needsKeyFrame || av1.wantsHigherLayer(active: producer.activeDecodeTargets)
        }
        var selector = vp9
        selector.targetSpatial = effectiveTarget
        return selector.needsKeyFrame
    }

    private func setSelectorTarget(_ target: Int?) {
        if isAV1 { av1.targetSpatial = target } else { vp9.targetSpatial = target }
    }

    // MARK: - Packet path

    override func forward(_ view: RTPPacketView, from stream: ProducerStream, isKeyFrame: Bool, now: Int64) {
        guard !paused else { return }
        if view.ssrc != sourceSSRC {
            // The publisher's new peer connection (docs/network.md, "Addresses that change"): its
            // encoder starts over with a key picture; numbering and timing go on after ours.
            if sourceSSRC != 0 { continueAfterRestartedSource(firstTimestamp: view.timestamp, now: now) }
            sourceSSRC = view.ssrc
        }
        let before = currentSpatialLayer
        setSelectorTarget(effectiveTarget)
        if isAV1 {
            forwardAV1(view, from: stream, now: now)
        } else {
            forwardVP9(view, now: now)
        }
        if currentSpatialLayer != before { didSwitch(from: before) }
    }

    @inline(__always)
    private func forwardVP9(_ view: RTPPacketView, now: Int64) {
        guard let descriptor = producer.vp9Descriptor else {
            sequenceNumbers.drop(view.sequenceNumber)  // not VP9 we can read: a receiver could not either
            return
        }
        let verdict = vp9.select(descriptor, timestamp: view.timestamp, marker: view.marker)
        guard verdict.forward else {
            sequenceNumbers.drop(view.sequenceNumber)
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: 0, outSequence: outSequence, outTimestamp: view.timestamp &- timestampOffset, now: now,
             setMarker: verdict.marker && !view.marker)
    }

    @inline(__always)
    private func forwardAV1(_ view: RTPPacketView, from stream: ProducerStream, now: Int64) {
        guard let descriptor = producer.dependencyDescriptor else {
            sequenceNumbers.drop(view.sequenceNumber)  // no descriptor we can read: no frame to place it in
            return
        }
        // Key frames only: the structure is copied out once for the selector.
        if descriptor.carriesStructure, let structure = stream.dependencyDescriptors?.structure { av1.learn(structure) }
        let waited = av1.needsKeyFrame
        let verdict = av1.select(descriptor, active: producer.activeDecodeTargets, timestamp: view.timestamp, marker: view.marker)
        if !waited, av1.needsKeyFrame, now - lastKeyFrameAsk >= Self.keyFrameRetryInterval {
            // The decode target forwarded went off (the publisher's active_decode_targets_bitmask,
            // §A.4: dynacast paused its layer) and the one left needs a key frame (`L3T3_KEY`'s
            // lower layer is not among the frames sent so far): ask now, not at the next tick (a
            // subscribing transport's next timer may be its next allocation or report). A switch
            // asked for by `setTarget` has just asked.
            lastKeyFrameAsk = now
            producer.requestKeyFrame(layer: 0, now: now)
            transport.wakeTimers()
        }
        guard verdict.forward else {
            sequenceNumbers.drop(view.sequenceNumber)
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: 0, outSequence: outSequence, outTimestamp: view.timestamp &- timestampOffset, now: now,
             setMarker: verdict.marker && !view.marker,
             descriptorRewrite: .init(layout: descriptor.layout, activeDecodeTargets: verdict.activeDecodeTargets))
    }

    override func skip(_ sequenceNumber: UInt16, from stream: ProducerStream) {
        guard !paused, currentSpatialLayer != nil else { return }
        sequenceNumbers.drop(sequenceNumber)
    }

    /// The target within the layers the stream carries now.
    private var effectiveTarget: Int? {
        targetLayer.map { min($0, producer.spatialLayers.count - 1) }
    }

    private func didSwitch(from previous: Int?) {
        guard let layer = currentSpatialLayer else { return }  // paused: said when it was decided
        let previousName = resuming ? LayerSwitch.pausedLayer : previous.map(producer.spatialLayerName)
        resuming = false
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(
            layer: producer.spatialLayerName(layer), previous: previousName, cause: targetCause)))
    }

    // MARK: - Layer choice

    /// Sets the spatial layer to forward. Lower: from the next picture (VP9), or the next frame
    /// its decode target goes on from (AV1). Higher: from the next picture that allows it; the
    /// publisher is asked for a key frame. While paused for bandwidth only the allocation's own
    /// target resumes (a requested layer becomes the preference).
    func setTarget(_ layer: Int?, cause: LayerSwitchCause, now: Int64, dropCurrent: Bool) {
        if isPausedForBandwidth {
            guard cause == .bandwidth, layer != nil else { return }
            isPausedForBandwidth = false
            resuming = true
            vp9.restart()
            av1.restart()
        }
        guard layer != targetLayer else { return }
        targetLayer = layer
        targetCause = cause
        setSelectorTarget(effectiveTarget)
        if waitsForKeyFrame {
            lastKeyFrameAsk = now
            producer.requestKeyFrame(layer: 0, now: now)
        }
        transport.wakeTimers()  // the re-ask (`nextKeyFrameAsk`) may be due before the transport's next timer
    }

    func setPreferred(_ layer: Int) { preferredLayer = layer }

    /// Sets the highest temporal layer to forward: lower from the next picture (VP9) or frame
    /// that leaves the dropped layers out (AV1); higher from the next frame that allows it (a TL0
    /// picture or switching-up point; a switch indication), no key frame needed.
    func setTemporalTarget(_ temporal: Int, now: Int64) {
        let wanted: Int? = temporal >= producer.spatialLayers.temporalCount - 1 ? nil : max(temporal, 0)
        guard wanted != targetTemporalLayer else { return }
        targetTemporalLayer = wanted
        vp9.targetTemporal = wanted ?? 7
        av1.targetTemporal = wanted ?? 7
    }

    /// Stops sending from the next picture; says so at once with a switch to `LayerSwitch.pausedLayer`.
    func pauseForBandwidth(now: Int64) {
        guard !isPausedForBandwidth else { return }
        isPausedForBandwidth = true
        targetLayer = nil
        setSelectorTarget(nil)
        resuming = false
        let previous = currentSpatialLayer.map(producer.spatialLayerName)
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(layer: LayerSwitch.pausedLayer, previous: previous, cause: .bandwidth)))
    }

    /// When `tick` re-asks for a key frame, while the selector waits for one to switch (µs).
    override var nextKeyFrameAsk: Int64? {
        guard waitsForKeyFrame else { return nil }
        return lastKeyFrameAsk + Self.keyFrameRetryInterval
    }

    override func tick(now: Int64) {
        guard let due = nextKeyFrameAsk, now >= due else { return }
        lastKeyFrameAsk = now
        producer.requestKeyFrame(layer: 0, now: now)
    }

    override func didResume(now: Int64) {
        super.didResume(now: now)
        vp9.restart()
        av1.restart()
        lastKeyFrameAsk = now
        producer.requestKeyFrame(layer: 0, now: now)
    }
}

extension SVCConsumer: LayeredConsumer {
    var heldLayer: Int? { targetLayer ?? currentSpatialLayer }
    var forwardedLayer: Int? { currentSpatialLayer }
    var temporalLayers: Int { producer.spatialLayers.temporalCount }
    var heldTemporalLayer: Int { targetTemporalLayer ?? temporalLayers - 1 }

    /// Each spatial layer's cost to this subscriber: with the layers below it for VP9 (they are
    /// forwarded too), and for AV1 only those its decode target holds.
    func layerBitrates(now: Int64) -> [Int] {
        guard isAV1 else { return producer.spatialLayers.cumulativeBitrates(now: now) }
        let active = producer.activeDecodeTargets
        return producer.spatialLayers.bitrates(now: now) { layer, lower in av1.spatialLayer(layer, includes: lower, active: active) }
    }

    /// Each (spatial, temporal) step's cost to this subscriber, as `layerBitrates` with only the
    /// temporal layers up to the step's.
    func ladderBitrates(now: Int64) -> [Int] {
        guard isAV1 else { return producer.spatialLayers.ladderBitrates(now: now) { layer, lower in lower <= layer } }
        let active = producer.activeDecodeTargets
        return producer.spatialLayers.ladderBitrates(now: now) { layer, lower in av1.spatialLayer(layer, includes: lower, active: active) }
    }
}
