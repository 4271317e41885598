import RTCMedia
import RTCWire

/// Forwards one scalable VP9 stream (SVC, RFC 9628) with the spatial and temporal layers one
/// subscriber gets, without renegotiation: `VP9LayerSelector` decides per packet, this class
/// sends what it keeps, rewritten like any consumer's (SSRC, gap-free sequence numbers from
/// `SeqManager`: a dropped layer leaves no hole a receiver would NACK). Picture ids and TL0PICIDX
/// go unchanged (one stream: they are continuous already).
///
/// The target spatial layer is the subscriber's preferred one, lowered and raised by the
/// transport's allocation (`LayerAllocator`, as for simulcast), and never above the layers the
/// stream carries (`VP9SpatialLayers.count`). While the selector waits for a picture where it can
/// go up (a key picture with `L3T3_KEY`), the publisher is asked for a key frame, and again every
/// second. Each change of the layer being forwarded is a `layerSwitched` event. I/O thread only.
final class VP9SVCConsumer: Consumer {
    private(set) var preferredLayer: Int
    private(set) var targetLayer: Int?
    private(set) var isPausedForBandwidth = false
    private var selector: VP9LayerSelector
    private var targetCause: LayerSwitchCause = .requested
    private var lastKeyFrameAsk: Int64 = 0
    /// The next layer forwarded ends a pause for bandwidth (its event names `none` as the previous).
    private var resuming = false

    init(id: ConsumerID, participant: ParticipantID, transport: MediaTransport, producer: Producer,
         parameters: RTPParameters, ssrc: UInt32, paused: Bool, preferredLayer: Int) throws(SFUError) {
        self.preferredLayer = preferredLayer
        selector = VP9LayerSelector(targetSpatial: nil)
        try super.init(id: id, participant: participant, transport: transport, producer: producer,
                       parameters: parameters, ssrc: ssrc, paused: paused)
    }

    /// The producer's one stream: key frames are asked for on it.
    override var currentLayer: Int? { 0 }

    /// The spatial layer being forwarded now.
    var currentSpatialLayer: Int? { selector.currentSpatial }

    // MARK: - Packet path

    override func forward(_ view: RTPPacketView, from stream: ProducerStream, isKeyFrame: Bool, now: Int64) {
        guard !paused else { return }
        guard let descriptor = producer.vp9Descriptor else {
            sequenceNumbers.drop(view.sequenceNumber)  // not VP9 we can read: a receiver could not either
            return
        }
        selector.targetSpatial = effectiveTarget
        let before = selector.currentSpatial
        let verdict = selector.select(descriptor, timestamp: view.timestamp, marker: view.marker)
        if selector.currentSpatial != before { didSwitch(from: before) }
        guard verdict.forward else {
            sequenceNumbers.drop(view.sequenceNumber)
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: 0, outSequence: outSequence, outTimestamp: view.timestamp &- timestampOffset, now: now,
             setMarker: verdict.marker && !view.marker)
    }

    override func skip(_ sequenceNumber: UInt16, from stream: ProducerStream) {
        guard !paused, selector.currentSpatial != nil else { return }
        sequenceNumbers.drop(sequenceNumber)
    }

    /// The target within the layers the stream carries now.
    private var effectiveTarget: Int? {
        targetLayer.map { min($0, producer.vp9Layers.count - 1) }
    }

    private func didSwitch(from previous: Int?) {
        guard let layer = selector.currentSpatial else { return }  // paused: said when it was decided
        let previousName = resuming ? LayerSwitch.pausedLayer : previous.map(producer.spatialLayerName)
        resuming = false
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(
            layer: producer.spatialLayerName(layer), previous: previousName, cause: targetCause)))
    }

    // MARK: - Layer choice

    /// Sets the spatial layer to forward. Lower: from the next picture. Higher: from the next
    /// picture that allows it; the publisher is asked for a key frame. While paused for bandwidth
    /// only the allocation's own target resumes (a requested layer becomes the preference).
    func setTarget(_ layer: Int?, cause: LayerSwitchCause, now: Int64, dropCurrent: Bool) {
        if isPausedForBandwidth {
            guard cause == .bandwidth, layer != nil else { return }
            isPausedForBandwidth = false
            resuming = true
            selector.restart()
        }
        guard layer != targetLayer else { return }
        targetLayer = layer
        targetCause = cause
        selector.targetSpatial = effectiveTarget
        if selector.needsKeyFrame {
            lastKeyFrameAsk = now
            producer.requestKeyFrame(layer: 0, now: now)
        }
        transport.wakeTimers()  // the re-ask (`nextKeyFrameAsk`) may be due before the transport's next timer
    }

    func setPreferred(_ layer: Int) { preferredLayer = layer }

    /// Stops sending from the next picture; says so at once with a switch to `LayerSwitch.pausedLayer`.
    func pauseForBandwidth(now: Int64) {
        guard !isPausedForBandwidth else { return }
        isPausedForBandwidth = true
        targetLayer = nil
        selector.targetSpatial = nil
        resuming = false
        let previous = selector.currentSpatial.map(producer.spatialLayerName)
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(layer: LayerSwitch.pausedLayer, previous: previous, cause: .bandwidth)))
    }

    /// When `tick` re-asks for a key frame, while the selector waits for one to go up (µs).
    override var nextKeyFrameAsk: Int64? {
        guard !paused else { return nil }
        var waiting = selector
        waiting.targetSpatial = effectiveTarget
        guard waiting.needsKeyFrame else { return nil }
        return lastKeyFrameAsk + Self.keyFrameRetryInterval
    }

    override func tick(now: Int64) {
        guard let due = nextKeyFrameAsk, now >= due else { return }
        lastKeyFrameAsk = now
        producer.requestKeyFrame(layer: 0, now: now)
    }

    override func didResume(now: Int64) {
        super.didResume(now: now)
        selector.restart()
        lastKeyFrameAsk = now
        producer.requestKeyFrame(layer: 0, now: now)
    }
}

extension VP9SVCConsumer: LayeredConsumer {
    var heldLayer: Int? { targetLayer ?? selector.currentSpatial }
    var forwardedLayer: Int? { selector.currentSpatial }

    func layerBitrates(now: Int64) -> [Int] { producer.vp9Layers.cumulativeBitrates(now: now) }
}
