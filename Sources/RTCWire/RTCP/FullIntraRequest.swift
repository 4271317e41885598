/// FIR: full intra request (RFC 5104 §4.3.1): PSFB, PT=206, FMT=4.
///
/// ```
/// |V=2|P|  FMT=4  |   PT=206      |          length               |
/// |                  SSRC of packet sender                        |
/// |             SSRC of media source (unused, 0)                  |
/// |                              SSRC                             |  × n (n ≥ 1)
/// | Seq nr.       |    Reserved                                   |
/// ```
public struct FullIntraRequest: RTCPPacketCodable {
    /// One FCI entry: the source asked for a key frame and the request's sequence number.
    public struct Entry: Hashable, Sendable {
        public var ssrc: UInt32
        /// Incremented for each new request (RFC 5104 §4.3.1.2), so repeats can be told apart.
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    /// The feedback sender.
    public var senderSSRC: UInt32
    /// Unused by FIR and set to 0 by senders; kept as read.
    public var mediaSSRC: UInt32
    /// FCI entries (at least one on the wire).
    public var entries: [Entry]

    public static let format: UInt8 = 4

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.payloadFeedback, format: Self.format)
        guard body.count >= 8 else { throw .packetTooShort }
        let fci = body.count - 8
        guard fci >= 8, fci % 8 == 0 else { throw .firShortFCI }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        entries = stride(from: 8, to: body.count, by: 8).map { Entry(ssrc: body.u32($0), sequenceNumber: body.u8($0 + 4)) }
    }

    public var serializedSize: Int { RTCPHeader.size + 8 + entries.count * 8 }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: Self.format, packetType: RTCPPacketType.payloadFeedback, size: size, into: &out)
        out.u32(senderSSRC)
        out.u32(mediaSSRC)
        for entry in entries {
            out.u32(entry.ssrc)
            out.u8(entry.sequenceNumber)
            out.zeros(3)
        }
        return out.offset
    }
}
