/// An RTCP packet of a type this module does not model (APP, XR, TMMBR, SLI, other AFB…),
/// kept byte for byte so a compound can be rewritten without losing it.
public struct RTCPRawPacket: RTCPPacketCodable {
    /// The whole packet, header and any padding included.
    public let bytes: [UInt8]

    /// The packet's header.
    public var header: RTCPHeader {
        // `bytes` was validated on creation, so the header always parses.
        bytes.withUnsafeBytes { (try? RTCPHeader(parsing: $0)) ?? RTCPHeader(count: 0, packetType: 0, length: 0) }
    }

    /// Validates the header and length of one packet and keeps its bytes.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let header = try RTCPHeader(parsing: bytes)
        guard header.packetSize <= bytes.count else { throw .lengthOverrun }
        guard header.packetSize == bytes.count else { throw .trailingBytes }
        _ = try RTCPHeader.open(bytes, packetType: header.packetType)
        self.bytes = Array(bytes)
    }

    public var serializedSize: Int { bytes.count }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var out = writer(buffer, size: bytes.count)
        out.bytes(bytes)
        return out.offset
    }
}
