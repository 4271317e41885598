import RTCMedia
import RTCNet
import RTCWire
import Synchronization

/// What one soak participant receives on its subscribe transport, stream by stream (SSRC): the
/// share of the forwarded packets that arrived (after NACK repair), and for video whether frames
/// came out of a jitter buffer whole and in order; one video stream is really decoded and its
/// frame numbers checked. It asks for what is missing as a browser would: NACKs for lost packets
/// (RFC 4585 §6.2.1), a PLI when a frame is given up (§6.3.1).
///
/// Runs on the subscribe transport's I/O thread (`receive` from its RTP callback, `tick` through
/// `execute`); `snapshot()` is safe from any thread.
// @unchecked Sendable: the streams, decoder and counters are touched only on the subscribe transport's I/O thread; `sendRTCP` is set before `onRTP` is hooked; `snapshot()` reads `published` (Mutex).
final class SoakReceiver: @unchecked Sendable {
    /// One received SSRC.
    private struct Stream {
        let video: Bool
        /// Extended sequence numbers: first and highest seen, and which of the recent ones arrived.
        var first: Int64
        var highest: Int64
        var seen = Set<Int64>()
        var received = 0
        var jitter: VideoJitterBuffer?
        var lastPacketUs: Int64 = 0
    }

    private let clipFrames: Int
    private var streams: [UInt32: Stream] = [:]
    /// The stream being decoded, its decoder and the last frame number read.
    private var decodedSSRC: UInt32?
    private var decoder: VP8Decoder?
    private var lastNumber: Int?
    /// A decoder started on a stream already under way waits for its next key frame (asked for).
    private var awaitingKeyFrame = false
    private var counters = SoakTotals()
    private let published = Mutex(SoakTotals())
    /// Sends RTCP on the subscribe transport (set by the participant).
    var sendRTCP: (([RTCPPacket]) -> Void)?

    /// - Parameter clipFrames: frames in the publishers' clip (frame numbers wrap there).
    init(clipFrames: Int) { self.clipFrames = clipFrames }

    /// Totals so far.
    func snapshot() -> SoakTotals { published.withLock { $0 } }

    // MARK: - I/O thread

    /// One RTP packet; `video` from its payload type (VP8 is 96 in the server's offers).
    func receive(_ packet: RTPPacket, nowUs: Int64) {
        let isVideo = packet.payloadType != 111
        var stream = streams[packet.ssrc] ?? Stream(video: isVideo, first: Int64(packet.sequenceNumber), highest: Int64(packet.sequenceNumber),
                                                    jitter: isVideo ? VideoJitterBuffer() : nil)
        // Extended sequence number (RFC 3550 §A.1): the wrap-aware distance from the highest so far.
        let extended = stream.highest + Int64(RTCWire.SequenceNumber.distance(from: UInt16(truncatingIfNeeded: stream.highest), to: packet.sequenceNumber))
        if extended > stream.highest { stream.highest = extended }
        if extended >= stream.first, stream.seen.insert(extended).inserted { stream.received += 1 }
        if stream.seen.count > 8192 { stream.seen = stream.seen.filter { $0 > stream.highest - 4096 } }
        stream.lastPacketUs = nowUs
        if stream.video { _ = try? stream.jitter?.insert(payload: packet.payload, sequenceNumber: packet.sequenceNumber,
                                                          timestamp: packet.timestamp, marker: packet.marker, arrivalUs: nowUs) }
        streams[packet.ssrc] = stream
        if stream.video, decodedSSRC == nil { startDecoding(packet.ssrc) }
    }

    /// Every 20 ms: frames out of the jitter buffers, NACKs and PLIs, and the published totals.
    func tick(nowUs: Int64) {
        var rtcp: [RTCPPacket] = []
        var totals = SoakTotals()
        for ssrc in streams.keys {
            guard var stream = streams[ssrc] else { continue }
            if stream.video, var jitter = stream.jitter {
                for frame in jitter.popFrames(nowUs: nowUs) where ssrc == decodedSSRC { decode(frame) }
                let missing = jitter.missingSequenceNumbers(nowUs: nowUs)
                if !missing.isEmpty {
                    rtcp.append(.nack(TransportLayerNack(senderSSRC: 1, mediaSSRC: ssrc, lost: missing)))
                    counters.nacksSent += 1
                }
                if jitter.shouldRequestKeyFrame(nowUs: nowUs) {
                    rtcp.append(.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: ssrc)))
                    counters.plisSent += 1
                }
                totals.framesEmitted += jitter.statistics.framesEmitted
                totals.framesDropped += jitter.statistics.framesDropped
                stream.jitter = jitter
                totals.videoExpected += Int(stream.highest - stream.first + 1)
                totals.videoReceived += stream.received
            } else {
                totals.audioExpected += Int(stream.highest - stream.first + 1)
                totals.audioReceived += stream.received
            }
            streams[ssrc] = stream
        }
        // A decoded stream that went quiet (its publisher left): decode another one.
        if let ssrc = decodedSSRC, let stream = streams[ssrc], nowUs - stream.lastPacketUs > 2_000_000 {
            decodedSSRC = nil
            if let next = streams.first(where: { $0.value.video && nowUs - $0.value.lastPacketUs < 500_000 })?.key { startDecoding(next) }
        }
        if !rtcp.isEmpty { sendRTCP?(rtcp) }
        totals.decoded = counters.decoded
        totals.decodeBreaks = counters.decodeBreaks
        totals.unreadable = counters.unreadable
        totals.nacksSent = counters.nacksSent
        totals.plisSent = counters.plisSent
        published.withLock { $0 = totals }
    }

    // MARK: - Internals

    private func startDecoding(_ ssrc: UInt32) {
        decodedSSRC = ssrc
        decoder = try? VP8Decoder()
        lastNumber = nil
        awaitingKeyFrame = true
        sendRTCP?([.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: ssrc))])
    }

    /// Decodes a frame of the sampled stream: its number must follow the last one, or start the
    /// clip over at a key frame.
    private func decode(_ frame: DepacketizedVideoFrame) {
        if awaitingKeyFrame {
            guard frame.isKeyFrame else { return }
            awaitingKeyFrame = false
        }
        guard let decoder, let image = try? decoder.decode(frame.encodedFrame) else {
            counters.decodeBreaks += 1
            return
        }
        counters.decoded += 1
        guard let number = TestPatternReader.frameNumber(in: image) else {
            counters.unreadable += 1
            lastNumber = nil
            return
        }
        if let last = lastNumber, number != (last + 1) % clipFrames, !(frame.isKeyFrame && number == 0) { counters.decodeBreaks += 1 }
        lastNumber = number
    }
}

/// What soak receivers counted, summed over streams (and participants).
public struct SoakTotals: Sendable, Equatable {
    public var videoExpected = 0, videoReceived = 0, audioExpected = 0, audioReceived = 0
    /// Video frames out of the jitter buffers whole and in order, and frames given up.
    public var framesEmitted = 0, framesDropped = 0
    /// Frames of the sampled streams decoded; frames that failed to decode or came out of
    /// sequence; decoded frames whose number the reader could not make out.
    public var decoded = 0, decodeBreaks = 0, unreadable = 0
    public var nacksSent = 0, plisSent = 0

    public init() {}

    private static var fields: [WritableKeyPath<SoakTotals, Int>] {
        [\.videoExpected, \.videoReceived, \.audioExpected, \.audioReceived, \.framesEmitted, \.framesDropped,
         \.decoded, \.decodeBreaks, \.unreadable, \.nacksSent, \.plisSent]
    }

    private func combined(with other: SoakTotals, _ operation: (Int, Int) -> Int) -> SoakTotals {
        var result = SoakTotals()
        for field in Self.fields { result[keyPath: field] = operation(self[keyPath: field], other[keyPath: field]) }
        return result
    }

    public static func + (a: SoakTotals, b: SoakTotals) -> SoakTotals { a.combined(with: b, +) }
    public static func - (a: SoakTotals, b: SoakTotals) -> SoakTotals { a.combined(with: b, -) }
}
