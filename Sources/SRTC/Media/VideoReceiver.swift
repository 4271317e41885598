import Foundation
import RTCMedia
import RTCWire
import Synchronization

/// Receives one subscribed video stream: reorders packets (jitter buffer), asks for lost ones
/// (NACK) and key frames (PLI), decodes VP8, VP9, H.264 or AV1 (the section's codec) on its own queue and
/// hands frames to the track.
// @unchecked Sendable: `ssrc` is assigned only in init (never after); everything else is a `let` of a Sendable type or a Mutex.
final class VideoReceiver: @unchecked Sendable {
    /// What the receive path asks the session to send upstream.
    struct Feedback: Equatable {
        var nack: [UInt16] = []
        var pli = false
    }

    private struct State {
        var jitter: VideoJitterBuffer
        var statistics = RTPReceiveStatistics(clockRate: 90_000)
        /// Set by the decoder when a frame failed: the next packet asks for a key frame.
        var decoderNeedsKeyFrame = false
        var lastForcedPLIUs: Int64?
    }

    let mid: String
    let track: RemoteVideoTrack
    private(set) var ssrc: UInt32
    private let state: Mutex<State>
    private let decodeQueue: DispatchQueue
    let codec: VideoCodec
    private let decoder: Mutex<(any VideoDecoding)?>
    private let logger: Logger
    private let e2ee: E2EEChannelCrypto?

    init(mid: String, ssrc: UInt32, track: RemoteVideoTrack, codec: VideoCodec = .vp8, e2ee: E2EEChannelCrypto? = nil, logger: Logger) {
        self.e2ee = e2ee
        self.mid = mid
        self.ssrc = ssrc
        self.track = track
        self.codec = codec
        self.logger = logger
        decodeQueue = DispatchQueue(label: "srtc.video-decode.\(track.id)")
        decoder = Mutex(try? codec.makeDecoder())
        // Waits up to 500 ms for a missing packet (several NACK rounds at typical RTTs, and room
        // for a busy machine) before giving up on the frame and asking for a key frame.
        var configuration = VideoJitterBuffer.Configuration()
        configuration.maxWaitUs = 500_000
        configuration.codec = codec
        state = Mutex(State(jitter: VideoJitterBuffer(configuration: configuration)))
    }

    /// One RTP packet of the stream (transport I/O thread). Returns the feedback to send.
    func receive(_ packet: RTPPacketView, nowUs: Int64) -> Feedback {
        let payload = Array(packet.payload)
        var (frames, feedback) = state.withLock { s -> ([DepacketizedVideoFrame], Feedback) in
            s.statistics.update(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrivalMicros: nowUs,
                                size: packet.bytes.count)
            do {
                if payload.isEmpty && packet.paddingLength > 0 {
                    // Padding only (the server probing for bandwidth): a number, no media.
                    s.jitter.insertPadding(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrivalUs: nowUs)
                } else {
                    try s.jitter.insert(payload: payload, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                        marker: packet.marker, arrivalUs: nowUs)
                }
            } catch {
                // A malformed VP8 descriptor or empty payload: the packet is dropped (and will be NACKed as missing).
            }
            let frames = s.jitter.popFrames(nowUs: nowUs)
            var feedback = Feedback(nack: s.jitter.missingSequenceNumbers(nowUs: nowUs), pli: s.jitter.shouldRequestKeyFrame(nowUs: nowUs))
            if s.decoderNeedsKeyFrame, s.lastForcedPLIUs.map({ nowUs &- $0 >= 500_000 }) ?? true {
                s.decoderNeedsKeyFrame = false
                s.lastForcedPLIUs = nowUs
                feedback.pli = true
            }
            return (frames, feedback)
        }
        guard !frames.isEmpty else { return feedback }
        if let e2ee {
            // Decrypted after reassembly (docs/e2ee.md); a frame that does not decrypt is dropped,
            // and asking for key frames would not help: its state tells the app instead.
            let layout = E2EEFrame.Codec(codec)
            frames = frames.compactMap { frame in
                var frame = frame
                // A picture of several spatial layers (VP9: the descriptors' B bits; AV1: the
                // clear OBU extensions' spatial ids): each layer frame was encrypted apart.
                var starts = frame.layerFrameStarts
                if starts.isEmpty, layout == .av1 {
                    starts = frame.data.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }
                }
                if starts.isEmpty {
                    guard let plain = e2ee.decrypt(frame.data, codec: layout, from: track.uid) else { return nil }
                    frame.data = plain
                    return frame
                }
                var plain: [UInt8] = []
                var plainStarts: [Int] = []
                let bounds = [0] + starts + [frame.data.count]
                for (start, end) in zip(bounds, bounds.dropFirst()) {
                    guard let layer = e2ee.decrypt(Array(frame.data[start ..< end]), codec: layout, from: track.uid) else { return nil }
                    if !plain.isEmpty { plainStarts.append(plain.count) }
                    plain.append(contentsOf: layer)
                }
                frame.data = plain
                // VP9 keeps where its layer frames begin (an encoded renderer gets them as a superframe).
                frame.layerFrameStarts = layout == .vp9 ? plainStarts : []
                return frame
            }
            if frames.isEmpty { return feedback }
        }
        if track.hasEncodedRenderers {
            for frame in frames {
                track.deliverEncoded(EncodedMediaFrame(kind: .video, data: Self.encodedData(of: frame), isKeyFrame: frame.isKeyFrame, rtpTimestamp: frame.rtpTimestamp,
                                                       clockRate: 90_000, receivedAtUs: nowUs, width: frame.width, height: frame.height,
                                                       videoCodec: codec))
            }
        }
        if track.needsDecoding { decode(frames) } else { track.frameArrivedUndecoded() }
        return feedback
    }

    /// The bytes an encoded renderer gets of `frame`: a VP9 picture of several layer frames as a
    /// superframe (VP9 Annex B: its frames, then an index of their sizes), the form a VP9 chunk of
    /// several frames has in files and decoders; anything else as it arrived.
    static func encodedData(of frame: DepacketizedVideoFrame) -> [UInt8] {
        let starts = frame.layerFrameStarts
        guard !starts.isEmpty, starts.count < 8 else { return frame.data }
        let bounds = [0] + starts + [frame.data.count]
        let sizes = zip(bounds, bounds.dropFirst()).map { $1 - $0 }
        guard sizes.allSatisfy({ $0 > 0 }) else { return frame.data }
        var data = frame.data
        VP9Superframe.appendIndex(frameSizes: sizes, to: &data)
        return data
    }

    /// A sender report for this stream arrived.
    func senderReportArrived(_ ntp: NTPTime, at seconds: Double) {
        state.withLock { $0.statistics.senderReportArrived(ntp: ntp, arrivalMicros: Int64(seconds * 1e6)) }
    }

    /// The RR block for this stream.
    func receptionReport(now: Double) -> ReceptionReport? {
        state.withLock { s in s.statistics.started ? s.statistics.makeReportBlock(ssrc: ssrc, nowMicros: Int64(now * 1e6)) : nil }
    }

    var statistics: RTPReceiveStatistics { state.withLock { $0.statistics } }
    var jitterStatistics: VideoJitterBuffer.Statistics { state.withLock { $0.jitter.statistics } }

    /// Returns once every frame handed to the decoder so far has been decoded (or dropped).
    func decodesFinished() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in decodeQueue.async { done.resume() } }
    }

    private func decode(_ frames: [DepacketizedVideoFrame]) {
        decodeQueue.async { [self] in
            for frame in frames {
                do {
                    let decoded = try decoder.withLock { d -> VideoFrame? in try d?.decodeIntact(frame.encodedFrame) }
                    if let decoded { track.deliver(decoded) }
                } catch {
                    logger.debug("\(codec.rawValue) decode failed on \(track.id): \(error)")
                    state.withLock { $0.decoderNeedsKeyFrame = true }
                }
            }
        }
    }
}
