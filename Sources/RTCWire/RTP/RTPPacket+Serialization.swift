// Writing an owned RTP packet (RFC 3550 §5.1, RFC 8285 §4).

extension RTPPacket {
    /// How the extension block is written, decided once from the fields.
    enum ExtensionEncoding {
        case none
        case elements(profile: UInt16, twoByte: Bool, dataLength: Int)
        case opaque(profile: UInt16, dataLength: Int)

        /// Extension header (4) plus data padded to 32 bits.
        var blockLength: Int {
            switch self {
            case .none: return 0
            case .elements(_, _, let length), .opaque(_, let length): return 4 + (length + 3) & ~3
            }
        }
    }

    var extensionEncoding: ExtensionEncoding {
        if let profile = extensionProfile, !profile.hasElements {
            return .opaque(profile: profile.rawValue, dataLength: extensionData.count)
        }
        guard !extensions.isEmpty || extensionProfile != nil else { return .none }
        let allFitOneByte = extensions.allSatisfy { $0.fitsOneByteForm }
        let twoByte: Bool
        let profile: UInt16
        if let chosen = extensionProfile, chosen.isTwoByte {
            (twoByte, profile) = (true, chosen.rawValue)
        } else if allFitOneByte {
            (twoByte, profile) = (false, RTPExtensionProfile.oneByte.rawValue)
        } else {
            (twoByte, profile) = (true, RTPExtensionProfile.twoByte.rawValue)
        }
        let headerSize = twoByte ? 2 : 1
        let length = extensions.reduce(0) { $0 + headerSize + $1.count }
        return .elements(profile: profile, twoByte: twoByte, dataLength: length)
    }

    /// Bytes `serialize` writes.
    public var serializedSize: Int {
        RTPPacketView.fixedHeaderLength + csrcs.count * 4 + extensionEncoding.blockLength
            + payload.count + Int(paddingLength)
    }

    /// Writes the packet into `buffer` without allocating.
    /// - Precondition: `buffer.count >= serializedSize`.
    /// - Returns: the number of bytes written.
    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let encoding = extensionEncoding
        let size = RTPPacketView.fixedHeaderLength + csrcs.count * 4 + encoding.blockLength
            + payload.count + Int(paddingLength)
        precondition(buffer.count >= size, "buffer smaller than RTPPacket.serializedSize")
        precondition(csrcs.count <= 15, "RTP carries at most 15 CSRCs")

        var writer = ByteWriter(buffer)
        var first: UInt8 = 0x80 | UInt8(csrcs.count)
        if paddingLength > 0 { first |= 0x20 }
        if case .none = encoding {} else { first |= 0x10 }
        writer.u8(first)
        writer.u8((marker ? 0x80 : 0) | (payloadType & 0x7F))
        writer.u16(sequenceNumber)
        writer.u32(timestamp)
        writer.u32(ssrc)
        for csrc in csrcs { writer.u32(csrc) }

        switch encoding {
        case .none:
            break
        case .opaque(let profile, let length):
            writer.u16(profile)
            writer.u16(UInt16((length + 3) / 4))
            writer.bytes(extensionData)
            writer.zeros((4 - length % 4) % 4)
        case .elements(let profile, let twoByte, let length):
            writer.u16(profile)
            writer.u16(UInt16((length + 3) / 4))
            for element in extensions {
                if twoByte {
                    writer.u8(element.id)
                    writer.u8(UInt8(element.count))
                } else {
                    writer.u8(element.id << 4 | UInt8(element.count - 1))
                }
                element.withUnsafeBytes { writer.bytes($0) }
            }
            writer.zeros((4 - length % 4) % 4)
        }

        writer.bytes(payload)
        if paddingLength > 0 {
            writer.zeros(Int(paddingLength) - 1)
            writer.u8(paddingLength)
        }
        return writer.offset
    }

    /// The packet's bytes.
    public func serialize() -> [UInt8] {
        makeBytes(size: serializedSize) { serialize(into: $0) }
    }
}
