import RTCWire

/// Forwards a single-stream producer (audio, or video without simulcast).
///
/// Video starts, and restarts after a pause, on a key frame: packets before it could not be
/// decoded and would only make the subscriber NACK and PLI; it asks for one again each
/// `keyFrameRetryInterval` until one comes. Audio starts at once.
///
/// Video is also a one-layer `LayeredConsumer`: the transport's allocation (`LayerAllocator`)
/// costs it at its measured rate and, when the budget cannot carry it on top of the audio, pauses
/// it for bandwidth as it pauses a simulcast consumer below its smallest layer
/// (`pauseForBandwidth`: the frame being sent is finished, then nothing, and a `layerSwitched` to
/// `LayerSwitch.pausedLayer`); it resumes by itself on a key frame once a probe proved the layer
/// fits, with a `layerSwitched` from `none` (docs/network.md, "One layer pauses too").
final class SimpleConsumer: Consumer {
    /// Per-packet state, I/O thread only (see `Consumer.paused`).
    @exclusivity(unchecked) private var waitingForKeyFrame: Bool
    /// When a key frame was last asked for (µs).
    private var lastKeyFrameAsk: Int64 = 0
    /// Paused by the allocation (not by the subscriber: that is `paused`). Video only.
    @exclusivity(unchecked) private(set) var isPausedForBandwidth = false
    /// The key frame that ends a pause for bandwidth is awaited: its event names `none` as the
    /// previous layer, and the sequence continues right after the last number sent.
    @exclusivity(unchecked) private var resuming = false

    override init(id: ConsumerID, participant: ParticipantID, transport: MediaTransport, producer: Producer,
                  parameters: RTPParameters, ssrc: UInt32, paused: Bool) throws(SFUError) {
        waitingForKeyFrame = producer.detectsKeyFrames
        try super.init(id: id, participant: participant, transport: transport, producer: producer,
                       parameters: parameters, ssrc: ssrc, paused: paused)
    }

    override var currentLayer: Int? { 0 }

    override func forward(_ view: RTPPacketView, from stream: ProducerStream, isKeyFrame: Bool, now: Int64) {
        guard !paused else { return }
        if isPausedForBandwidth {
            finishFrame(view, layer: 0, now: now)
            return
        }
        if view.ssrc != sourceSSRC {
            // The publisher's new peer connection (docs/network.md, "Addresses that change"): its
            // video starts with a key frame, which is waited for.
            if sourceSSRC != 0 {
                continueAfterRestartedSource(firstTimestamp: view.timestamp, now: now)
                if producer.detectsKeyFrames, !isKeyFrame {
                    waitingForKeyFrame = true
                    requestKeyFrame(now: now)
                }
            }
            sourceSSRC = view.ssrc
        }
        if waitingForKeyFrame {
            guard isKeyFrame else { return }
            waitingForKeyFrame = false
            if resuming { resumed(at: view.sequenceNumber) }
        }
        guard outgoing(view) != nil else {
            // A RED packet with nothing to strip to: the subscriber sees no gap for it.
            sequenceNumbers.drop(view.sequenceNumber)
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: 0, outSequence: outSequence, outTimestamp: view.timestamp &- timestampOffset, now: now)
    }

    /// The key frame that ends a pause for bandwidth: numbered right after the last number sent
    /// (probe padding included), and announced.
    private func resumed(at sequenceNumber: UInt16) {
        resuming = false
        sequenceNumbers.sync(sequenceNumber)
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(
            layer: LayerSwitch.oneLayer, previous: LayerSwitch.pausedLayer, cause: .bandwidth)))
    }

    override func skip(_ sequenceNumber: UInt16, from stream: ProducerStream) {
        guard !paused, !waitingForKeyFrame, !isPausedForBandwidth else { return }
        sequenceNumbers.drop(sequenceNumber)
    }

    override func requestKeyFrame(now: Int64) {
        lastKeyFrameAsk = now
        super.requestKeyFrame(now: now)
        transport.wakeTimers()  // the re-ask (`nextKeyFrameAsk`) may be due before the transport's next timer
    }

    /// While it waits for the key frame it starts on, it asks again (a simulcast switch does too):
    /// a shared screen or a camera without simulcast sends no periodic key frames, so a dropped
    /// request would leave the subscriber without a picture for good.
    override var nextKeyFrameAsk: Int64? {
        guard !paused, !isPausedForBandwidth, waitingForKeyFrame else { return nil }
        return lastKeyFrameAsk + Self.keyFrameRetryInterval
    }

    override func tick(now: Int64) {
        guard let due = nextKeyFrameAsk, now >= due else { return }
        requestKeyFrame(now: now)
    }

    override func didResume(now: Int64) {
        super.didResume(now: now)
        if producer.detectsKeyFrames {
            waitingForKeyFrame = true
            // Paused for bandwidth too: the key frame is asked for when the allocation resumes it.
            if !isPausedForBandwidth { requestKeyFrame(now: now) }
        }
    }

    // MARK: - One layer for the allocation

    /// Stops sending (after the frame being sent) because the subscriber's bandwidth cannot carry
    /// the video on top of the audio; says so at once with a switch to `LayerSwitch.pausedLayer`.
    func pauseForBandwidth(now: Int64) {
        guard !isPausedForBandwidth else { return }
        isPausedForBandwidth = true
        resuming = false
        transport.router.emit(.layerSwitched(consumer: id, LayerSwitch(
            layer: LayerSwitch.pausedLayer, previous: LayerSwitch.oneLayer, cause: .bandwidth)))
    }

    /// The allocation's target: a layer (0) after a pause for bandwidth resumes on the next key
    /// frame, asked for now and again each `keyFrameRetryInterval`. A requested target changes
    /// nothing (one layer).
    func setTarget(_ layer: Int?, cause: LayerSwitchCause, now: Int64, dropCurrent: Bool) {
        guard isPausedForBandwidth, cause == .bandwidth, layer != nil else { return }
        isPausedForBandwidth = false
        resuming = true
        waitingForKeyFrame = true
        requestKeyFrame(now: now)
    }
}

extension SimpleConsumer: LayeredConsumer {
    /// Audio stays outside the allocation: it is taken off the budget first (`Signals.fixed`).
    var isAllocated: Bool { producer.isVideo }
    var preferredLayer: Int { 0 }
    var heldLayer: Int? { isPausedForBandwidth ? nil : 0 }
    var forwardedLayer: Int? { isPausedForBandwidth ? nil : 0 }
    func setPreferred(_ layer: Int) {}

    /// The stream's measured rate (0 while its publisher muted it: nothing to allocate).
    func layerBitrates(now: Int64) -> [Int] {
        [producer.muted ? 0 : producer.streams.first?.bitrate ?? 0]
    }
}

extension LayerSwitch {
    /// The layer of a single stream in its events (paused and resumed for bandwidth): no name.
    /// The server names it by the track's `desc` (docs/protocol.md, `layer_switched`), which only
    /// the room knows.
    public static let oneLayer = ""
}
