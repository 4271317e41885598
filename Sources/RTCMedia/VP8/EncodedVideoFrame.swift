// One compressed video frame as it leaves the encoder and enters the packetizer (and, on the receive
// side, as the frame assembler or jitter buffer hands it to the decoder).

/// A compressed VP8 frame with the facts the RTP layer needs about it.
public struct EncodedVideoFrame: Sendable, Equatable {
    /// The VP8 bitstream of one frame (RFC 6386), without any RTP payload descriptor.
    public var data: [UInt8]
    /// Whether the frame is a key frame (decodable on its own).
    public var isKeyFrame: Bool
    /// Presentation time in microseconds (the source frame's `timestampUs`).
    public var timestampUs: Int64
    /// Coded width in pixels (0 when unknown, e.g. a received delta frame).
    public var width: Int
    /// Coded height in pixels (0 when unknown).
    public var height: Int

    /// Creates an encoded frame.
    public init(data: [UInt8], isKeyFrame: Bool, timestampUs: Int64, width: Int = 0, height: Int = 0) {
        self.data = data
        self.isKeyFrame = isKeyFrame
        self.timestampUs = timestampUs
        self.width = width
        self.height = height
    }

    /// The presentation time on the 90 kHz RTP clock, wrapped to 32 bits.
    public var rtpTimestamp: UInt32 {
        UInt32(truncatingIfNeeded: timestampUs.multipliedReportingOverflow(by: 9).partialValue / 100)
    }
}
