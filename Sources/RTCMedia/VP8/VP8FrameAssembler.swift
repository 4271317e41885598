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
public struct VP8FrameAssembler: Sendable {
    /// What one pushed packet produced.
    public struct Output: Sendable, Equatable {
        /// The frame this packet completed, if any.
        public var frame: DepacketizedVideoFrame?
        /// Packets missing just before this one (0 when the sequence was contiguous).
        public var lostPackets: Int
    }

    /// Largest frame accepted; a frame growing past it is discarded (bounds memory on hostile input).
    public let maxFrameSize: Int
    /// Whether the receiver should ask the sender for a key frame (nothing decodable since a gap, or yet).
    public private(set) var needsKeyFrame = true
    /// Packets found missing so far.
    public private(set) var lostPacketCount = 0
    /// Frames given up (incomplete, oversized, or delta frames withheld while waiting for a key frame).
    public private(set) var discardedFrameCount = 0

    private var sequence = InOrderSequence()
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
        guard let lost = sequence.advance(to: sequenceNumber) else { return Output(frame: nil, lostPackets: 0) }
        if lost > 0 {
            lostPacketCount += lost
            abandonFrame()
            needsKeyFrame = true
        }
        let parsed: (descriptor: VP8PayloadDescriptor, length: Int)
        do {
            parsed = try VP8PayloadDescriptor.parse(payload)
        } catch {
            abandonFrame()
            needsKeyFrame = true
            throw error
        }
        let data = UnsafeRawBufferPointer(rebasing: payload[parsed.length...])
        if parsed.descriptor.isFrameStart {
            if inFrame { abandonFrame() }     // previous frame never got its marker
            guard data.count >= 3 else { needsKeyFrame = true; throw RTPPayloadError.truncatedVP8Header }
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
        if needsKeyFrame && !frame.isKeyFrame {
            discardedFrameCount += 1
            return Output(frame: nil, lostPackets: lost)
        }
        if frame.isKeyFrame { needsKeyFrame = false }
        return Output(frame: frame, lostPackets: lost)
    }

    /// Adds the next packet's payload held in an array (see the buffer overload).
    public mutating func push(payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32,
                              marker: Bool) throws(RTPPayloadError) -> Output {
        try payload.withUnsafeBytes { bytes in
            Result { () throws(RTPPayloadError) in
                try push(payload: bytes, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker)
            }
        }.get()
    }

    // MARK: - Internals

    private mutating func abandonFrame() {
        if inFrame { discardedFrameCount += 1 }
        inFrame = false
        current.removeAll(keepingCapacity: true)
    }
}
