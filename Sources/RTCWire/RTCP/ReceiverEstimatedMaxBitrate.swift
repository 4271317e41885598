/// REMB: receiver estimated maximum bitrate (draft-alvestrand-rmcat-remb-03 §2.2), an
/// application-layer feedback message: PSFB, PT=206, FMT=15.
///
/// ```
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback (Num SSRC of them)                            |
/// ```
/// The bitrate in bits per second is mantissa (18 bits) × 2^exp (6 bits).
public struct ReceiverEstimatedMaxBitrate: RTCPPacketCodable {
    /// The feedback sender.
    public var senderSSRC: UInt32
    /// Always 0 per the draft; kept as read.
    public var mediaSSRC: UInt32
    /// Estimated maximum bitrate, bits per second. Written rounded down to 18 significant bits.
    public var bitrate: UInt64
    /// The streams the estimate applies to (at most 255).
    public var ssrcs: [UInt32]

    public static let format: UInt8 = 15
    static let identifier: UInt32 = 0x5245_4D42  // "REMB"
    /// The largest bitrate the encoding can express: 0x3FFFF × 2^46.
    public static let maximumBitrate: UInt64 = 0x3FFFF << 46

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrate: UInt64, ssrcs: [UInt32]) {
        precondition(ssrcs.count <= 255, "REMB lists at most 255 SSRCs")
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// True when an AFB body (after the two SSRCs) starts with "REMB".
    static func isREMB(_ body: UnsafeRawBufferPointer) -> Bool {
        body.count >= 12 && body.u32(8) == identifier
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.payloadFeedback, format: Self.format)
        guard body.count >= 12 else { throw .packetTooShort }
        guard Self.isREMB(body) else { throw .rembMissingIdentifier }
        guard body.count >= 16 else { throw .packetTooShort }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        let count = Int(body.u8(12))
        let exponent = body.u8(13) >> 2
        let mantissa = UInt64(body.u24(13) & 0x3FFFF)
        // Clamp instead of overflowing: a hostile exponent of 63 must not trap.
        if mantissa != 0, exponent > 0, mantissa.leadingZeroBitCount < Int(exponent) {
            bitrate = Self.maximumBitrate
        } else {
            bitrate = min(mantissa << exponent, Self.maximumBitrate)
        }
        guard 16 + count * 4 <= body.count else { throw .rembSSRCCountOverrun }
        ssrcs = (0 ..< count).map { body.u32(16 + $0 * 4) }
    }

    /// The (exponent, mantissa) pair written for `bitrate`.
    var encodedBitrate: (exponent: UInt8, mantissa: UInt32) {
        var mantissa = min(bitrate, Self.maximumBitrate)
        var exponent: UInt8 = 0
        while mantissa > 0x3FFFF {
            mantissa >>= 1
            exponent += 1
        }
        return (exponent, UInt32(mantissa))
    }

    public var serializedSize: Int { RTCPHeader.size + 16 + ssrcs.count * 4 }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: Self.format, packetType: RTCPPacketType.payloadFeedback, size: size, into: &out)
        out.u32(senderSSRC)
        out.u32(mediaSSRC)
        out.u32(Self.identifier)
        out.u8(UInt8(ssrcs.count))
        let (exponent, mantissa) = encodedBitrate
        out.u24(UInt32(exponent) << 18 | mantissa)
        for ssrc in ssrcs { out.u32(ssrc) }
        return out.offset
    }
}
