// The in-order RTP frame assemblers (VP8, H.264) share one interface, so a receiver or a test
// drives either the same way; their loss bookkeeping is `FrameLossTracker`.

/// What the in-order assemblers have in common: a push of one RTP payload at a time.
public protocol RTPFrameAssembler {
    /// Adds the next packet's payload; the output holds the frame it completed, if any.
    mutating func push(payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32,
                       marker: Bool) throws(RTPPayloadError) -> FrameAssemblerOutput
}

extension RTPFrameAssembler {
    /// Adds the next packet's payload held in an array (see the buffer overload).
    public mutating func push(payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32,
                              marker: Bool) throws(RTPPayloadError) -> FrameAssemblerOutput {
        try payload.withUnsafeBytes { bytes in
            Result { () throws(RTPPayloadError) in
                try push(payload: bytes, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker)
            }
        }.get()
    }
}

/// What one pushed packet produced.
public struct FrameAssemblerOutput: Sendable, Equatable {
    /// The frame this packet completed, if any.
    public var frame: DepacketizedVideoFrame?
    /// Packets missing just before this one (0 when the sequence was contiguous).
    public var lostPackets: Int

    public init(frame: DepacketizedVideoFrame?, lostPackets: Int) {
        self.frame = frame
        self.lostPackets = lostPackets
    }
}
