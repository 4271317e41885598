import RTCWire

/// Forwards a single-stream producer (audio, or video without simulcast).
///
/// Video starts, and restarts after a pause, on a key frame: packets before it could not be
/// decoded and would only make the subscriber NACK and PLI; it asks for one again each
/// `keyFrameRetryInterval` until one comes. Audio starts at once.
final class SimpleConsumer: Consumer {
    /// Per-packet state, I/O thread only (see `Consumer.paused`).
    @exclusivity(unchecked) private var waitingForKeyFrame: Bool
    /// When a key frame was last asked for (µs).
    private var lastKeyFrameAsk: Int64 = 0

    override init(id: ConsumerID, participant: ParticipantID, transport: MediaTransport, producer: Producer,
                  parameters: RTPParameters, ssrc: UInt32, paused: Bool) throws(SFUError) {
        waitingForKeyFrame = producer.detectsKeyFrames
        try super.init(id: id, participant: participant, transport: transport, producer: producer,
                       parameters: parameters, ssrc: ssrc, paused: paused)
    }

    override var currentLayer: Int? { 0 }

    override func forward(_ view: RTPPacketView, from stream: ProducerStream, isKeyFrame: Bool, now: Int64) {
        guard !paused else { return }
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
        }
        guard outgoing(view) != nil else {
            // A RED packet with nothing to strip to: the subscriber sees no gap for it.
            sequenceNumbers.drop(view.sequenceNumber)
            return
        }
        guard let outSequence = sequenceNumbers.input(view.sequenceNumber) else { return }
        send(view, layer: 0, outSequence: outSequence, outTimestamp: view.timestamp &- timestampOffset, now: now)
    }

    override func skip(_ sequenceNumber: UInt16, from stream: ProducerStream) {
        guard !paused, !waitingForKeyFrame else { return }
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
        guard !paused, waitingForKeyFrame else { return nil }
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
            requestKeyFrame(now: now)
        }
    }
}
