// Rebuilds VP8 frames from RTP payloads that arrive in order (after a jitter buffer, or on a clean link).
//
// A frame begins with the packet whose descriptor has S = 1 and PID = 0 and ends with the packet carrying
// the RTP marker (RFC 7741 §4.1, §4.4); all its packets share one RTP timestamp and consecutive sequence
// numbers. A sequence-number gap discards the frame in progress. Because frames after a loss may reference
// the lost one, delta frames are then withheld until a key frame arrives: `needsKeyFrame` tells the caller
// to send a PLI.

import RTCWire

// MARK: - Types

/// Reassembles complete VP8 frames from in-order RTP payloads and detects gaps.
public struct VP8FrameAssembler: RTPFrameAssembler, Sendable {
    public typealias Output = FrameAssemblerOutput

    /// Largest frame accepted; a frame growing past it is discarded (bounds memory on hostile input).
    public let maxFrameSize: Int
    /// Whether the receiver should ask the sender for a key frame (nothing decodable since a gap, or yet).
    public var needsKeyFrame: Bool { losses.needsKeyFrame }
    /// Packets found missing so far.
    public var lostPacketCount: Int { losses.lostPacketCount }
    /// Frames given up (incomplete, oversized, or delta frames withheld while waiting for a key frame).
    public var discardedFrameCount: Int { losses.discardedFrameCount }

    private var losses = FrameLossTracker()
    private var current: [UInt8] = []
    private var inFrame = false
    private var currentTimestamp: UInt32 = 0
    private var currentPictureID: UInt16?
    private var currentFirst: UInt16 = 0

    // MARK: - Public API

    /// Creates an assembler.
    /// - Parameter maxFrameSize: 4 MiB by default, far above any real-time VP8 frame.
    public init(maxFrameSize: Int = 4 << 20) {
        self.maxFrameSize = maxFrameSize
    }

    /// Adds the next packet's payload.
    /// - Parameters:
    ///   - payload: the RTP payload (VP8 descriptor + data).
    ///   - sequenceNumber: the packet's RTP sequence number.
    ///   - timestamp: the packet's RTP timestamp.
    ///   - marker: the packet's RTP marker bit (last packet of a frame).
    /// - Throws: `RTPPayloadError` for a malformed descriptor; the frame in progress is then discarded.
    public mutating func push(payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32,
                              marker: Bool) throws(RTPPayloadError) -> Output {
        guard let lost = losses.arrive(sequenceNumber) else { return Output(frame: nil, lostPackets: 0) }
        if lost > 0 { abandonFrame() }
        let parsed: (descriptor: VP8PayloadDescriptor, length: Int)
        do {
            parsed = try VP8PayloadDescriptor.parse(payload)
        } catch {
            abandonFrame()
            losses.needKeyFrame()
            throw error
        }
        let data = UnsafeRawBufferPointer(rebasing: payload[parsed.length...])
        if parsed.descriptor.isFrameStart {
            if inFrame { abandonFrame() }     // previous frame never got its marker
            guard data.count >= 3 else { losses.needKeyFrame(); throw RTPPayloadError.truncatedVP8Header }
            inFrame = true
            current.removeAll(keepingCapacity: true)
            currentTimestamp = timestamp
            currentPictureID = parsed.descriptor.pictureID
            currentFirst = sequenceNumber
        } else if !inFrame || timestamp != currentTimestamp {
            // A continuation without its start (lost earlier, or from a broken sender).
            if inFrame { abandonFrame() }
            return Output(frame: nil, lostPackets: lost)
        }
        guard current.count + data.count <= maxFrameSize else {
            abandonFrame()
            return Output(frame: nil, lostPackets: lost)
        }
        current.append(contentsOf: data)
        guard marker else { return Output(frame: nil, lostPackets: lost) }

        inFrame = false
        let frame = DepacketizedVideoFrame.assemble(data: current, rtpTimestamp: currentTimestamp,
                                                    pictureID: currentPictureID, first: currentFirst, last: sequenceNumber)
        return Output(frame: losses.admit(keyFrame: frame.isKeyFrame) ? frame : nil, lostPackets: lost)
    }

    // MARK: - Internals

    private mutating func abandonFrame() {
        if inFrame { losses.discardFrame() }
        inFrame = false
        current.removeAll(keepingCapacity: true)
    }
}
