/// PLI: picture loss indication (RFC 4585 §6.3.1): PSFB, PT=206, FMT=1, no FCI.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=206      |          length=2             |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// ```
public struct PictureLossIndication: RTCPPacketCodable {
    /// The feedback sender.
    public var senderSSRC: UInt32
    /// The source that should send a key frame.
    public var mediaSSRC: UInt32

    public static let format: UInt8 = 1

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.payloadFeedback, format: Self.format)
        // RFC 4585 §6.3.1: PLI has no FCI; bytes past the two SSRCs are ignored.
        guard body.count >= 8 else { throw .packetTooShort }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
    }

    public var serializedSize: Int { RTCPHeader.size + 8 }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var out = writer(buffer, size: serializedSize)
        RTCPHeader.write(count: Self.format, packetType: RTCPPacketType.payloadFeedback, size: serializedSize, into: &out)
        out.u32(senderSSRC)
        out.u32(mediaSSRC)
        return out.offset
    }
}
