/// BYE: a source leaves (RFC 3550 §6.6), PT=203.
///
/// ```
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// |                           SSRC/CSRC (SC of them)              |
/// |     length    |               reason for leaving ...   (opt) |
/// ```
public struct Goodbye: RTCPPacketCodable {
    /// The sources leaving (at most 31).
    public var sources: [UInt32]
    /// Optional reason text, raw bytes (at most 255); empty for none.
    public var reason: [UInt8]

    public init(sources: [UInt32], reason: [UInt8] = []) {
        precondition(reason.count <= 255, "BYE reason holds at most 255 bytes")
        self.sources = sources
        self.reason = reason
    }

    /// With a text reason, cut to 255 bytes of UTF-8.
    public init(sources: [UInt32], reasonText: String) {
        self.init(sources: sources, reason: Array(reasonText.utf8.prefix(255)))
    }

    /// The reason decoded as UTF-8.
    public var reasonText: String { String(decoding: reason, as: UTF8.self) }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.goodbye)
        let sourcesEnd = Int(header.count) * 4
        guard sourcesEnd <= body.count else { throw .goodbyeSourceCountOverrun }
        sources = (0 ..< Int(header.count)).map { body.u32($0 * 4) }
        if sourcesEnd < body.count {
            let length = Int(body.u8(sourcesEnd))
            guard sourcesEnd + 1 + length <= body.count else { throw .goodbyeReasonOverrun }
            reason = body.copyBytes(sourcesEnd + 1 ..< sourcesEnd + 1 + length)
        } else {
            reason = []
        }
    }

    public var serializedSize: Int {
        RTCPHeader.size + sources.count * 4 + (reason.isEmpty ? 0 : (1 + reason.count + 3) & ~3)
    }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: UInt8(sources.count), packetType: RTCPPacketType.goodbye, size: size, into: &out)
        for source in sources { out.u32(source) }
        if !reason.isEmpty {
            out.u8(UInt8(reason.count))
            out.bytes(reason)
            out.zeros(size - out.offset)
        }
        return out.offset
    }
}
