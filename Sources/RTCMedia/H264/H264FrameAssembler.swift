// Rebuilds H.264 access units (Annex B) from in-order RTP payloads of packetization-mode 1
// (RFC 6184 §6.3): single NAL units (§5.6), STAP-A (§5.7.1) and FU-A (§5.8). An access unit's
// packets share one RTP timestamp and the last has the marker (§5.1). As for VP8, a sequence gap
// discards the unit in progress and withholds later units until one with an IDR slice arrives.

/// Reassembles H.264 access units from in-order RTP payloads and detects gaps.
public struct H264FrameAssembler: RTPFrameAssembler, Sendable {
    public typealias Output = FrameAssemblerOutput

    /// Largest access unit accepted; a larger one is discarded (bounds memory on hostile input).
    public let maxFrameSize: Int
    /// Whether the receiver should ask for a key frame (nothing decodable since a gap, or yet).
    public var needsKeyFrame: Bool { losses.needsKeyFrame }
    public var lostPacketCount: Int { losses.lostPacketCount }
    public var discardedFrameCount: Int { losses.discardedFrameCount }

    private var losses = FrameLossTracker()
    private var current: [UInt8] = []
    private var inFrame = false
    private var broken = false
    private var depacketizer = H264Depacketizer()
    private var currentTimestamp: UInt32 = 0
    private var currentFirst: UInt16 = 0

    public init(maxFrameSize: Int = 4 << 20) {
        self.maxFrameSize = maxFrameSize
    }

    /// Adds the next packet's payload.
    /// - Throws: `RTPPayloadError` for a malformed payload; the unit in progress is then discarded.
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
        // Missing packets belong to this unit or the one before; either way this one is incomplete.
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
        guard losses.admit(keyFrame: depacketizer.hasIDR) else { return Output(frame: nil, lostPackets: lost) }
        let frame = DepacketizedVideoFrame(data: current, rtpTimestamp: currentTimestamp, isKeyFrame: depacketizer.hasIDR, pictureID: nil,
                                           firstSequenceNumber: currentFirst, lastSequenceNumber: sequenceNumber)
        return Output(frame: frame, lostPackets: lost)
    }
}
