// A VP8 frame put back together from RTP payloads, with the RTP facts a receiver needs to decode and
// schedule it and to tell the sender what went wrong.

import RTCWire

/// A complete VP8 frame rebuilt from RTP payloads (descriptors removed), ready for `VP8Decoder`.
public struct DepacketizedVideoFrame: Sendable, Equatable {
    /// The VP8 bitstream of the frame.
    public var data: [UInt8]
    /// RTP timestamp shared by the frame's packets (90 kHz clock).
    public var rtpTimestamp: UInt32
    /// Whether the frame is a key frame (RFC 7741 §4.3: P bit of the first packet's VP8 payload header).
    public var isKeyFrame: Bool
    /// The PictureID of the frame's descriptors, when the sender included one.
    public var pictureID: UInt16?
    /// Sequence number of the frame's first packet.
    public var firstSequenceNumber: UInt16
    /// Sequence number of the frame's last packet (the one with the RTP marker).
    public var lastSequenceNumber: UInt16
    /// Coded width for key frames, 0 for delta frames.
    public var width: Int
    /// Coded height for key frames, 0 for delta frames.
    public var height: Int
    /// VP9: where in `data` each layer frame after the first begins (a packet with B set, RFC 9628
    /// §4.2); empty for a picture of one layer frame. End-to-end encryption encrypts each layer
    /// frame apart, so a receiver decrypts them apart (docs/e2ee.md).
    public var layerFrameStarts: [Int] = []

    /// Creates a frame.
    public init(data: [UInt8], rtpTimestamp: UInt32, isKeyFrame: Bool, pictureID: UInt16?,
                firstSequenceNumber: UInt16, lastSequenceNumber: UInt16, width: Int = 0, height: Int = 0) {
        self.data = data
        self.rtpTimestamp = rtpTimestamp
        self.isKeyFrame = isKeyFrame
        self.pictureID = pictureID
        self.firstSequenceNumber = firstSequenceNumber
        self.lastSequenceNumber = lastSequenceNumber
        self.width = width
        self.height = height
    }

    /// Number of RTP packets the frame arrived in.
    public var packetCount: Int { SequenceNumber.distance(from: firstSequenceNumber, to: lastSequenceNumber) + 1 }

    /// The frame as decoder input, its time converted from the 90 kHz RTP clock to microseconds
    /// (`timestampUs = rtpTimestamp / 90 000` s, within one 32-bit RTP clock cycle of about 13 hours).
    public var encodedFrame: EncodedVideoFrame {
        EncodedVideoFrame(data: data, isKeyFrame: isKeyFrame, timestampUs: Int64(rtpTimestamp) * 100 / 9,
                          width: width, height: height)
    }

    /// Builds a frame from its payloads' VP8 data, in order. Key frames are recognised by the P bit alone
    /// (RFC 7741 §4.3), as `VP8.isKeyFrame(payload:)` does; their size is read when the header is complete.
    static func assemble(data: [UInt8], rtpTimestamp: UInt32, pictureID: UInt16?, first: UInt16, last: UInt16)
        -> DepacketizedVideoFrame {
        let isKeyFrame = data.first.map { $0 & 0x01 == 0 } ?? false
        let size = VP8.keyFrameSize(bitstream: data)
        return DepacketizedVideoFrame(data: data, rtpTimestamp: rtpTimestamp, isKeyFrame: isKeyFrame, pictureID: pictureID,
                                      firstSequenceNumber: first, lastSequenceNumber: last,
                                      width: size?.width ?? 0, height: size?.height ?? 0)
    }
}
