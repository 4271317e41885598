/// A compound RTCP packet (RFC 3550 §6.1): packets back to back in one datagram.
///
/// RFC 5506 reduced-size RTCP (negotiated by `a=rtcp-rsize`, which browsers use) allows a
/// lone feedback packet, so the parser does not insist on an SR or RR first.
public enum RTCPCompound {
    /// Parses every packet; any malformed packet fails the whole datagram.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        for slice in try RTCPCompoundView(bytes) {
            packets.append(try RTCPPacket(parsing: slice.bytes))
        }
        return packets
    }

    /// Parses every packet; any malformed packet fails the whole datagram.
    public static func parse(_ bytes: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        try withRawBytes(bytes) { (raw) throws(RTCPError) in try parse(raw) }
    }

    /// Total bytes of `packets` written back to back.
    public static func serializedSize(_ packets: [RTCPPacket]) -> Int {
        packets.reduce(0) { $0 + $1.serializedSize }
    }

    /// Writes `packets` back to back into `buffer`.
    /// - Precondition: `buffer.count >= serializedSize(packets)`.
    @discardableResult
    public static func serialize(_ packets: [RTCPPacket], into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        for packet in packets {
            offset += packet.serialize(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
        }
        return offset
    }

    /// The compound's bytes.
    public static func serialize(_ packets: [RTCPPacket]) -> [UInt8] {
        makeBytes(size: serializedSize(packets)) { serialize(packets, into: $0) }
    }
}

/// The packets of a compound, found without allocating: headers and lengths are checked once
/// on creation, then iteration yields each packet's bytes, so a forwarding path can route
/// feedback by SSRC and parse only what it needs.
public struct RTCPCompoundView: Sequence {
    /// One packet in the compound.
    public struct Slice {
        /// The packet's header.
        public let header: RTCPHeader
        /// The packet's bytes, header included.
        public let bytes: UnsafeRawBufferPointer

        /// The first SSRC after the header: sender of SR/RR/feedback, first source of SDES/BYE
        /// (nil when the packet is only a header).
        public var senderSSRC: UInt32? { bytes.count >= 8 ? bytes.u32(4) : nil }

        /// The media source of an RTPFB / PSFB feedback packet (RFC 4585 §6.1).
        public var mediaSSRC: UInt32? {
            let feedback = header.packetType == RTCPPacketType.transportFeedback
                || header.packetType == RTCPPacketType.payloadFeedback
            return feedback && bytes.count >= 12 ? bytes.u32(8) : nil
        }
    }

    let bytes: UnsafeRawBufferPointer

    /// Checks that the packets tile `bytes` exactly: each header valid and in bounds.
    public init(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard !bytes.isEmpty else { throw .packetTooShort }
        var offset = 0
        while offset < bytes.count {
            let header = try RTCPHeader(parsing: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            guard header.packetSize <= bytes.count - offset else { throw .lengthOverrun }
            offset += header.packetSize
        }
        self.bytes = bytes
    }

    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        public mutating func next() -> Slice? {
            guard offset + RTCPHeader.size <= bytes.count,
                  let header = try? RTCPHeader(parsing: UnsafeRawBufferPointer(rebasing: bytes[offset...])),
                  header.packetSize <= bytes.count - offset
            else { return nil }
            let slice = Slice(header: header, bytes: UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + header.packetSize]))
            offset += header.packetSize
            return slice
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}
