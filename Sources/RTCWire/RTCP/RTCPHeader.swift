/// The 4-byte header every RTCP packet starts with (RFC 3550 §6.4.1).
///
/// ```
/// |V=2|P|  count  |      PT       |             length            |
/// ```
/// `count` is the report count (SR, RR), source count (SDES, BYE) or feedback message
/// type FMT (RFC 4585 §6.1); `length` is the packet size in 32-bit words minus one.
public struct RTCPHeader: Hashable, Sendable {
    /// The P bit.
    public var padding: Bool
    /// RC, SC or FMT (5 bits).
    public var count: UInt8
    /// Packet type (200 SR … 206 PSFB).
    public var packetType: UInt8
    /// Packet size in 32-bit words minus one.
    public var length: UInt16

    /// Header size in bytes.
    public static let size = 4

    public init(padding: Bool = false, count: UInt8, packetType: UInt8, length: UInt16) {
        self.padding = padding
        self.count = count & 0x1F
        self.packetType = packetType
        self.length = length
    }

    /// Reads the first four bytes.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard bytes.count >= Self.size else { throw .packetTooShort }
        let first = bytes.u8(0)
        guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
        self.padding = first & 0x20 != 0
        self.count = first & 0x1F
        self.packetType = bytes.u8(1)
        self.length = bytes.u16(2)
    }

    /// Whole packet size in bytes, header included.
    public var packetSize: Int { (Int(length) + 1) * 4 }

    /// Writes a header for a packet of `size` bytes (a multiple of 4).
    static func write(
        count: UInt8, packetType: UInt8, size: Int, padding: Bool = false, into writer: inout ByteWriter
    ) {
        precondition(size % 4 == 0 && size >= 4 && size <= 262_144, "RTCP packet size must be whole 32-bit words")
        precondition(count <= 31, "RTCP count field is 5 bits")
        writer.u8(0x80 | (padding ? 0x20 : 0) | count)
        writer.u8(packetType)
        writer.u16(UInt16(size / 4 - 1))
    }

    /// Validates one packet of `packetType` (and feedback `format`, when given) occupying all of
    /// `bytes`, and returns its header and body with any padding removed (RFC 3550 §6.4.1).
    static func open(
        _ bytes: UnsafeRawBufferPointer, packetType: UInt8, format: UInt8? = nil
    ) throws(RTCPError) -> (header: RTCPHeader, body: UnsafeRawBufferPointer) {
        let header = try RTCPHeader(parsing: bytes)
        guard header.packetType == packetType, format == nil || header.count == format else {
            throw .wrongPacketType(packetType: header.packetType, format: header.count)
        }
        let size = header.packetSize
        guard size <= bytes.count else { throw .lengthOverrun }
        guard size == bytes.count else { throw .trailingBytes }
        var bodyEnd = size
        if header.padding {
            let padding = Int(bytes.u8(size - 1))
            guard padding != 0 else { throw .paddingLengthZero }
            guard padding <= size - Self.size else { throw .paddingOverrun }
            bodyEnd -= padding
        }
        return (header, UnsafeRawBufferPointer(rebasing: bytes[Self.size ..< bodyEnd]))
    }
}

/// RTCP packet type numbers (RFC 3550 §12.1, RFC 4585 §6.1).
public enum RTCPPacketType {
    /// SR.
    public static let senderReport: UInt8 = 200
    /// RR.
    public static let receiverReport: UInt8 = 201
    /// SDES.
    public static let sourceDescription: UInt8 = 202
    /// BYE.
    public static let goodbye: UInt8 = 203
    /// APP.
    public static let applicationDefined: UInt8 = 204
    /// RTPFB: transport layer feedback (NACK FMT 1, transport-cc FMT 15).
    public static let transportFeedback: UInt8 = 205
    /// PSFB: payload-specific feedback (PLI FMT 1, FIR FMT 4, AFB/REMB FMT 15).
    public static let payloadFeedback: UInt8 = 206
}
