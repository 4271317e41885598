import RTCCrypto

/// A STUN message (RFC 8489 §5): type, transaction id and attributes in wire order.
///
/// Parsing checks the framing (cookie, lengths, FINGERPRINT, the position of MESSAGE-INTEGRITY) and
/// records where MESSAGE-INTEGRITY sits, so `verifyIntegrity(in:key:)` can check it on the raw bytes.
/// STUN is control traffic (a few packets per second per peer), so messages own their attributes.
public struct STUNMessage: Sendable, Equatable {
    /// 0x2112A442, the magic cookie that marks RFC 5389/8489 STUN (RFC 8489 §5).
    public static let magicCookie: UInt32 = 0x2112_A442
    /// XORed into the CRC-32 for FINGERPRINT (RFC 8489 §14.7).
    static let fingerprintXOR: UInt32 = 0x5354_554E
    static let headerLength = 20

    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// Attributes other than MESSAGE-INTEGRITY and FINGERPRINT, in wire order; those two are
    /// framing, added by `encoded(...)` and checked by `init(parsing:)` / `verifyIntegrity`.
    public var attributes: [STUNAttribute]
    /// Offset of the MESSAGE-INTEGRITY attribute header in the parsed bytes, if there was one.
    public private(set) var integrityOffset: Int?
    /// `true` when the parsed message carried a (valid) FINGERPRINT.
    public private(set) var hadFingerprint = false

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// `true` when `bytes` look like STUN by their first byte (0–3, RFC 7983 §7) and carry the cookie.
    public static func isSTUN(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= headerLength, bytes[0] < 4 else { return false }
        return readUInt32(bytes, at: 4) == magicCookie
    }

    // MARK: - Parsing

    /// Parses a whole datagram. Throws `STUNError` on any framing fault; never reads out of bounds.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(STUNError) {
        guard bytes.count >= Self.headerLength else { throw .truncated }
        guard bytes[0] & 0xC0 == 0 else { throw .notSTUN }
        guard Self.readUInt32(bytes, at: 4) == Self.magicCookie else { throw .badMagicCookie }
        let length = Int(Self.readUInt16(bytes, at: 2))
        guard length % 4 == 0 else { throw .badLength }
        guard Self.headerLength + length <= bytes.count else { throw .truncated }
        guard Self.headerLength + length == bytes.count else { throw .badLength }

        type = STUNMessageType(rawValue: Self.readUInt16(bytes, at: 0))
        transactionID = STUNTransactionID(high: Self.readUInt32(bytes, at: 8),
                                          low: UInt64(Self.readUInt32(bytes, at: 12)) << 32 | UInt64(Self.readUInt32(bytes, at: 16)))
        attributes = []
        var offset = Self.headerLength
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw .truncated }
            let attributeType = Self.readUInt16(bytes, at: offset)
            let valueLength = Int(Self.readUInt16(bytes, at: offset + 2))
            let padded = (valueLength + 3) & ~3
            guard padded <= bytes.count - offset - 4 else { throw .attributeOverrun(type: attributeType) }
            if hadFingerprint { throw .attributeAfterFingerprint(type: attributeType) }
            let valueStart = offset + 4
            switch attributeType {
            case STUNAttribute.messageIntegrity:
                guard integrityOffset == nil else { throw .attributeAfterIntegrity(type: attributeType) }
                guard valueLength == 20 else { throw .badAttributeValue(type: attributeType) }
                integrityOffset = offset
            case STUNAttribute.fingerprint:
                guard valueLength == 4 else { throw .badAttributeValue(type: attributeType) }
                guard valueStart + 4 == bytes.count else { throw .attributeAfterFingerprint(type: attributeType) }
                let expected = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<offset])) ^ Self.fingerprintXOR
                guard Self.readUInt32(bytes, at: valueStart) == expected else { throw .badFingerprint }
                hadFingerprint = true
            default:
                if integrityOffset != nil { throw .attributeAfterIntegrity(type: attributeType) }
                attributes.append(STUNAttribute(type: attributeType, value: Array(bytes[valueStart..<valueStart + valueLength])))
            }
            offset = valueStart + padded
        }
    }

    /// Parses `bytes`; see `init(parsing:)`.
    public init(bytes: [UInt8]) throws(STUNError) {
        var result: Result<STUNMessage, STUNError> = .failure(.truncated)
        bytes.withUnsafeBytes { raw in
            do throws(STUNError) { result = .success(try STUNMessage(parsing: raw)) } catch { result = .failure(error) }
        }
        self = try result.get()
    }

    // MARK: - Encoding

    /// The wire bytes. With `integrityKey`, appends MESSAGE-INTEGRITY (HMAC-SHA1 over the message
    /// with the length covering it, RFC 8489 §14.5); with `fingerprint`, appends FINGERPRINT last
    /// (§14.7). `padding` fills attribute padding (RFC 5769 samples use 0x20; zero otherwise).
    public func encoded(integrityKey: [UInt8]? = nil, fingerprint: Bool = true, padding: UInt8 = 0) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(128)
        Self.append16(&out, type.rawValue)
        Self.append16(&out, 0)
        Self.append32(&out, Self.magicCookie)
        out += transactionID.bytes
        for attribute in attributes {
            Self.append16(&out, attribute.type)
            Self.append16(&out, UInt16(truncatingIfNeeded: attribute.value.count))
            out += attribute.value
            while out.count % 4 != 0 { out.append(padding) }
        }
        if let key = integrityKey {
            Self.setLength(&out, out.count + 24 - Self.headerLength)
            let mac = Digest.hmacSHA1(key: key, message: out)
            Self.append16(&out, STUNAttribute.messageIntegrity)
            Self.append16(&out, 20)
            out += mac
        }
        if fingerprint {
            Self.setLength(&out, out.count + 8 - Self.headerLength)
            let crc = CRC32.checksum(out) ^ Self.fingerprintXOR
            Self.append16(&out, STUNAttribute.fingerprint)
            Self.append16(&out, 4)
            Self.append32(&out, crc)
        } else {
            Self.setLength(&out, out.count - Self.headerLength)
        }
        return out
    }

    // MARK: - Byte helpers

    @inline(__always)
    static func readUInt16(_ b: UnsafeRawBufferPointer, at i: Int) -> UInt16 {
        UInt16(b[i]) << 8 | UInt16(b[i + 1])
    }

    @inline(__always)
    static func readUInt32(_ b: UnsafeRawBufferPointer, at i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func append16(_ out: inout [UInt8], _ v: UInt16) {
        out.append(UInt8(v >> 8)); out.append(UInt8(v & 0xFF))
    }

    static func append32(_ out: inout [UInt8], _ v: UInt32) {
        append16(&out, UInt16(v >> 16)); append16(&out, UInt16(v & 0xFFFF))
    }

    static func setLength(_ out: inout [UInt8], _ length: Int) {
        out[2] = UInt8(truncatingIfNeeded: length >> 8)
        out[3] = UInt8(truncatingIfNeeded: length)
    }
}
