/// SDES: source description (RFC 3550 §6.5), PT=202.
///
/// ```
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// |                          SSRC/CSRC_1                          |   chunk 1
/// |  type  | length | text ... (items), ended by a null byte,     |
/// |  then null padding to the next 32-bit boundary                |
/// |                          SSRC/CSRC_2 ...                      |   chunk 2
/// ```
public struct SourceDescription: RTCPPacketCodable {
    /// One source's items.
    public struct Chunk: Hashable, Sendable {
        /// The SSRC or CSRC described.
        public var source: UInt32
        /// Its items, in wire order.
        public var items: [SDESItem]

        public init(source: UInt32, items: [SDESItem]) {
            self.source = source
            self.items = items
        }

        /// Chunk size: SSRC, items, at least one null, padded to 32 bits.
        var size: Int {
            4 + (items.reduce(0) { $0 + 2 + $1.value.count } + 1 + 3) & ~3
        }
    }

    /// Chunks (at most 31).
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// One chunk carrying a CNAME, the SDES every RTCP compound needs (RFC 3550 §6.1).
    public init(source: UInt32, cname: String) {
        self.chunks = [Chunk(source: source, items: [.cname(cname)])]
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.sourceDescription)
        var chunks: [Chunk] = []
        var offset = 0
        for _ in 0 ..< header.count {
            guard offset + 4 <= body.count else { throw .sdesChunkOverrun }
            var chunk = Chunk(source: body.u32(offset), items: [])
            offset += 4
            while true {
                guard offset < body.count else { throw .sdesItemOverrun }
                let type = body.u8(offset)
                if type == 0 {
                    // The null item ends the list; skip the nulls up to the next 32-bit boundary.
                    offset = (offset + 4) & ~3
                    break
                }
                guard offset + 2 <= body.count else { throw .sdesItemOverrun }
                let length = Int(body.u8(offset + 1))
                guard offset + 2 + length <= body.count else { throw .sdesItemOverrun }
                chunk.items.append(SDESItem(type: SDESItemType(rawValue: type), value: body.copyBytes(offset + 2 ..< offset + 2 + length)))
                offset += 2 + length
            }
            chunks.append(chunk)
        }
        self.chunks = chunks
    }

    public var serializedSize: Int {
        RTCPHeader.size + chunks.reduce(0) { $0 + $1.size }
    }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: UInt8(chunks.count), packetType: RTCPPacketType.sourceDescription, size: size, into: &out)
        for chunk in chunks {
            let end = out.offset + chunk.size
            out.u32(chunk.source)
            for item in chunk.items {
                out.u8(item.type.rawValue)
                out.u8(UInt8(item.value.count))
                out.bytes(item.value)
            }
            out.zeros(end - out.offset)
        }
        return out.offset
    }
}

/// The type byte of an SDES item (RFC 3550 §6.5).
public struct SDESItemType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let cname = SDESItemType(rawValue: 1)
    public static let name = SDESItemType(rawValue: 2)
    public static let email = SDESItemType(rawValue: 3)
    public static let phone = SDESItemType(rawValue: 4)
    public static let location = SDESItemType(rawValue: 5)
    public static let tool = SDESItemType(rawValue: 6)
    public static let note = SDESItemType(rawValue: 7)
    public static let priv = SDESItemType(rawValue: 8)
}

/// One SDES item: a type and up to 255 bytes of (normally UTF-8) text.
public struct SDESItem: Hashable, Sendable {
    /// The item type (never 0, which ends a chunk's list).
    public let type: SDESItemType
    /// The raw value, kept as bytes so a rewrite reproduces any input exactly.
    public let value: [UInt8]

    /// - Precondition: `type` is not 0 and `value` has at most 255 bytes.
    public init(type: SDESItemType, value: [UInt8]) {
        precondition(type.rawValue != 0, "SDES item type 0 ends the item list")
        precondition(value.count <= 255, "SDES item values hold at most 255 bytes")
        self.type = type
        self.value = value
    }

    /// A text item, cut to 255 bytes of UTF-8.
    public init(type: SDESItemType, text: String) {
        self.init(type: type, value: Array(text.utf8.prefix(255)))
    }

    /// A CNAME item.
    public static func cname(_ text: String) -> SDESItem { SDESItem(type: .cname, text: text) }

    /// The value decoded as UTF-8 (invalid bytes replaced).
    public var text: String { String(decoding: value, as: UTF8.self) }
}
