import RTCWire

/// Forwards one layer of a simulcast producer and switches layers without renegotiation.
///
/// The target layer is the subscriber's preferred one, lowered (and raised again) by the
/// transport's bandwidth allocation (`LayerAllocator`). A switch takes effect only on a key frame of the target layer
/// (a decoder cannot start a new stream mid-GOP), so until one arrives the current layer keeps
/// flowing; the producer is asked for that key frame when the target changes and again every
/// second while it is missing. At the switch the sequence numbers, timestamps and VP8 picture ids
/// continue where the previous layer stopped, and a `layerSwitched` event names the cause.
///
/// Below its lowest layer's cost the allocation pauses the consumer for bandwidth
/// (`pauseForBandwidth`): it finishes the frame being sent (a receiver keeps a whole frame, and
/// probe padding goes only between frames), then sends nothing, and says so with a `layerSwitched`
/// to `LayerSwitch.pausedLayer`; resuming is a switch from `none` on a key frame.
final class SimulcastConsumer: Consumer {
    private(set) var preferredLayer: Int
    private(set) var targetLayer: Int?
    /// Paused by the allocation (not by the subscriber: that is `paused`).
    private(set) var isPausedForBandwidth = false
    private var current: Int?
    private var targetCause: LayerSwitchCause = .requested
    private var lastKeyFrameAsk: Int64 = 0
    /// The current layer is no longer forwarded past the frame being sent: paused, or dropped at
    /// once for a lower target under congestion (until that target's key frame switches).
    private var holding = false
    /// The next switch ends a pause for bandwidth (its event names `none` as the previous layer).
    private var resuming = false

    init(id: ConsumerID, participant: ParticipantID, transport: MediaTransport, producer: Producer,
         parameters: RTPParameters, ssrc: UInt32, paused: Bool, preferredLayer: Int) throws(SFUError) {
        self.preferredLayer = preferredLayer
        try super.init(id: id, participant: participant, transport: transport, producer: producer,
                       parameters: parameters, ssrc: ssrc, paused: paused)
        if producer.isVP8 { pictureIDs = VP8PictureIDRewriter() }
    }

    override var currentLayer: Int? { current }

    // MARK: - Packet path

    override func forward(_ view: RTPPacketView, from stream: ProducerStream, isKeyFrame: Bool, now: Int64) {
        guard !paused else { return }
        let layer = stream.index
        if layer == current, view.ssrc != sourceSSRC {
            // The layer came back under a new SSRC (the publisher's new peer connection,
            // docs/network.md "Addresses that change"): taken again from its key frame, numbered
            // and timed after what was sent.
            guard isKeyFrame else {
                if now - lastKeyFrameAsk >= Self.keyFrameRetryInterval {
                    lastKeyFrameAsk = now
                    requestKeyFrame(now: now)
                }
                return
            }
            continueAfterRestartedSource(firstTimestamp: view.timestamp, now: now)
            pictureIDs?.resync()
            sourceSSRC = view.ssrc
        }
        if layer != current {
            guard let target = targetLayer, layer == target, isKeyFrame else { return }
            switchLayer(to: stream, firstTimestamp: view.timestamp, firstSequence: view.sequenceNumber, now: now)
            sourceSSRC = view.ssrc
        } else if holding {
            finishFrame(view, layer: layer, now: now)
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: layer, outSequence: outSequence, outTimestamp: view.timestamp &- timestampOffset, now: now)
    }

    override func skip(_ sequenceNumber: UInt16, from stream: ProducerStream) {
        guard !paused, stream.index == current else { return }
        sequenceNumbers.drop(sequenceNumber)
    }

    private func switchLayer(to stream: ProducerStream, firstTimestamp: UInt32, firstSequence: UInt16, now: Int64) {
        let previous = current
        rebaseTimestamp(to: stream, firstTimestamp: firstTimestamp, now: now)
        sequenceNumbers.sync(firstSequence)
        pictureIDs?.resync()
        current = stream.index
        holding = false
        let previousName = resuming ? LayerSwitch.pausedLayer : previous.map { producer.streams[$0].layerName }
        resuming = false
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(
            layer: stream.layerName, previous: previousName, cause: targetCause)))
    }

    /// Picks the timestamp offset that makes `firstTimestamp` of the new stream follow the last
    /// one sent. With sender reports of both streams the publisher's own clock maps one stream's
    /// timestamps onto the other's (keeping lip sync); otherwise the elapsed wall time is used.
    private func rebaseTimestamp(to stream: ProducerStream, firstTimestamp: UInt32, now: Int64) {
        guard lastSendTime != .min else {
            timestampOffset = 0
            return
        }
        var target: UInt32
        if let layer = current, let old = producer.streams[layer].senderReport, let new = stream.senderReport {
            let rate = Double(clockRate)
            let wall = Self.seconds(new.ntp) + Double(RTPTimestamp.distance(from: new.rtp, to: firstTimestamp)) / rate
            let ticks = ((wall - Self.seconds(old.ntp)) * rate).rounded()
            let oldDomain = old.rtp &+ UInt32(truncatingIfNeeded: Int64(ticks))
            target = oldDomain &- timestampOffset
        } else {
            target = timestampAfterLastSent(now: now)
        }
        if !RTPTimestamp.isNewer(target, than: lastTimestamp) { target = lastTimestamp &+ 1 }
        timestampOffset = firstTimestamp &- target
    }

    private static func seconds(_ ntp: UInt64) -> Double {
        Double(ntp >> 32) + Double(ntp & 0xFFFF_FFFF) / 4_294_967_296
    }

    // MARK: - Layer choice

    /// Sets the layer to switch to. A new target asks the producer for a key frame on it. While
    /// paused for bandwidth a requested layer only becomes the preference the allocation resumes
    /// toward (`setPreferred`); the allocation's own target resumes.
    /// - Parameter dropCurrent: a lower target under congestion: stop the current layer after the
    ///   frame being sent rather than at the target's key frame (a short freeze, not a queue that
    ///   keeps growing and takes the audio with it).
    func setTarget(_ layer: Int?, cause: LayerSwitchCause, now: Int64, dropCurrent: Bool = false) {
        if isPausedForBandwidth {
            guard cause == .bandwidth, layer != nil else { return }
            isPausedForBandwidth = false
            resuming = true
            current = nil
            holding = false
        }
        guard layer != targetLayer else { return }
        targetLayer = layer
        targetCause = cause
        if dropCurrent, let layer, let current, layer < current { holding = true }
        if let layer, layer != current {
            lastKeyFrameAsk = now
            producer.requestKeyFrame(layer: layer, now: now)
        }
        transport.wakeTimers()  // the re-ask (`nextKeyFrameAsk`) may be due before the transport's next timer
    }

    func setPreferred(_ layer: Int) { preferredLayer = layer }

    /// Stops sending (after the frame being sent) because the subscriber's bandwidth cannot carry
    /// the lowest layer; says so at once with a switch to `LayerSwitch.pausedLayer`.
    func pauseForBandwidth(now: Int64) {
        guard !isPausedForBandwidth else { return }
        isPausedForBandwidth = true
        targetLayer = nil
        resuming = false
        holding = current != nil
        let previous = current.map { producer.streams[$0].layerName }
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(layer: LayerSwitch.pausedLayer, previous: previous, cause: .bandwidth)))
    }

    /// When `tick` re-asks for the target's key frame, while a switch waits for one (µs).
    override var nextKeyFrameAsk: Int64? {
        guard !paused, let target = targetLayer, target != current else { return nil }
        return lastKeyFrameAsk + Self.keyFrameRetryInterval
    }

    /// Re-asks for the target's key frame while a switch waits for one.
    override func tick(now: Int64) {
        guard let due = nextKeyFrameAsk, now >= due, let target = targetLayer else { return }
        lastKeyFrameAsk = now
        producer.requestKeyFrame(layer: target, now: now)
    }

    override func requestKeyFrame(now: Int64) {
        if let target = targetLayer, target != current { producer.requestKeyFrame(layer: target, now: now) }
        super.requestKeyFrame(now: now)
    }

    override func didResume(now: Int64) {
        super.didResume(now: now)
        // Restart on a key frame: forget the current layer so the next key frame of the target switches.
        current = nil
        holding = false
        pictureIDs?.resync()
        requestKeyFrame(now: now)
    }
}

extension LayerSwitch {
    /// The layer of a consumer paused for bandwidth: nothing is forwarded. The signaling
    /// protocol's `layer_switched` carries it as it is (`LayerSwitchedInfo.pausedLayer`).
    public static let pausedLayer = "none"
}
