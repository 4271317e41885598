/// Why a STUN message (RFC 8489) was rejected.
public enum STUNError: Error, Sendable, Equatable {
    /// Fewer than the 20 header bytes, or fewer bytes than the header's length field announces.
    case truncated
    /// The two most significant bits of the first byte are not zero (RFC 8489 §5), so this is not STUN.
    case notSTUN
    /// The magic cookie is not 0x2112A442 (RFC 8489 §5).
    case badMagicCookie
    /// The header's message length is not a multiple of 4 or does not match the datagram size.
    case badLength
    /// An attribute's length field points past the end of the message.
    case attributeOverrun(type: UInt16)
    /// An attribute follows MESSAGE-INTEGRITY and is not FINGERPRINT (RFC 8489 §14.5).
    case attributeAfterIntegrity(type: UInt16)
    /// An attribute follows FINGERPRINT, which must be last (RFC 8489 §14.7).
    case attributeAfterFingerprint(type: UInt16)
    /// The FINGERPRINT value does not match the CRC-32 of the message (RFC 8489 §14.7).
    case badFingerprint
    /// A known attribute has a value of the wrong size or content.
    case badAttributeValue(type: UInt16)
    /// MESSAGE-INTEGRITY is missing or its HMAC does not match the key (RFC 8489 §14.5).
    case integrityMismatch
}
