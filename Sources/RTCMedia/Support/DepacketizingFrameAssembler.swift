// Rebuilds frames from in-order RTP payloads whose format a codec's depacketizer reads: H.264
// access units (RFC 6184 §6.3, `H264Depacketizer`) and AV1 temporal units (av1-rtp-spec §4.4,
// `AV1Depacketizer`). A frame's packets share one RTP timestamp and the last has the marker. As
// for VP8, a sequence gap discards the frame in progress and withholds later frames until a key
// frame arrives.

/// What a codec's depacketizer does for `DepacketizingFrameAssembler` (and the jitter buffer):
/// read one frame's payloads in order into its bitstream.
public protocol FrameDepacketizer: Sendable {
    init()
    /// Forgets the frame in progress.
    mutating func reset()
    /// Appends one payload's bitstream to `output`.
    mutating func append(_ payload: UnsafeRawBufferPointer, to output: inout [UInt8]) throws(RTPPayloadError)
    /// A unit split over payloads is still open (the frame is incomplete if it ends now).
    var inFragment: Bool { get }
    /// The frame so far is a key frame.
    var hasKeyFrame: Bool { get }
}

/// H.264 access units from in-order RTP payloads.
public typealias H264FrameAssembler = DepacketizingFrameAssembler<H264Depacketizer>
/// AV1 temporal units from in-order RTP payloads.
public typealias AV1FrameAssembler = DepacketizingFrameAssembler<AV1Depacketizer>

/// Reassembles frames from in-order RTP payloads and detects gaps.
public struct DepacketizingFrameAssembler<Depacketizer: FrameDepacketizer>: RTPFrameAssembler, Sendable {
    public typealias Output = FrameAssemblerOutput

    /// Largest frame accepted; a larger one is discarded (bounds memory on hostile input).
    public let maxFrameSize: Int
    /// Whether the receiver should ask for a key frame (nothing decodable since a gap, or yet).
    public var needsKeyFrame: Bool { losses.needsKeyFrame }
    public var lostPacketCount: Int { losses.lostPacketCount }
    public var discardedFrameCount: Int { losses.discardedFrameCount }

    private var losses = FrameLossTracker()
    private var current: [UInt8] = []
    private var inFrame = false
    private var broken = false
    private var depacketizer = Depacketizer()
    private var currentTimestamp: UInt32 = 0
    private var currentFirst: UInt16 = 0

    public init(maxFrameSize: Int = 4 << 20) {
        self.maxFrameSize = maxFrameSize
    }

    /// Adds the next packet's payload.
    /// - Throws: `RTPPayloadError` for a malformed payload; the frame in progress is then discarded.
    public mutating func push(payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32,
                              marker: Bool) throws(RTPPayloadError) -> Output {
        guard let lost = losses.arrive(sequenceNumber) else { return Output(frame: nil, lostPackets: 0) }
        if !inFrame || timestamp != currentTimestamp {
            if inFrame { losses.discardFrame() }
            inFrame = true
            broken = false
            depacketizer.reset()
            current.removeAll(keepingCapacity: true)
            currentTimestamp = timestamp
            currentFirst = sequenceNumber
        }
        // Missing packets belong to this frame or the one before; either way this one is incomplete.
        if lost > 0 { broken = true }
        do throws(RTPPayloadError) {
            if !broken { try depacketizer.append(payload, to: &current) }
        } catch {
            broken = true
            losses.needKeyFrame()
            throw error
        }
        guard current.count <= maxFrameSize else {
            broken = true
            current.removeAll(keepingCapacity: true)
            return Output(frame: nil, lostPackets: lost)
        }
        guard marker else { return Output(frame: nil, lostPackets: lost) }

        inFrame = false
        guard !broken, !current.isEmpty, !depacketizer.inFragment else {
            losses.discardFrame()
            return Output(frame: nil, lostPackets: lost)
        }
        guard losses.admit(keyFrame: depacketizer.hasKeyFrame) else { return Output(frame: nil, lostPackets: lost) }
        let frame = DepacketizedVideoFrame(data: current, rtpTimestamp: currentTimestamp, isKeyFrame: depacketizer.hasKeyFrame, pictureID: nil,
                                           firstSequenceNumber: currentFirst, lastSequenceNumber: sequenceNumber)
        return Output(frame: frame, lostPackets: lost)
    }
}
