/// Why an SFrame operation failed (RFC 9605 §4.4.4: a ciphertext that fails for any reason is
/// discarded; one whose key is missing may be kept until the key arrives).
public enum SFrameError: Error, Equatable, Sendable {
    /// The input ends inside the header, or is shorter than its header plus the tag.
    case truncated
    /// A key id or counter not in its shortest form (RFC 9605 §4.3 requires it).
    case nonMinimalHeader
    /// No decryption key is known for this key id.
    case unknownKeyID(UInt64)
    /// The tag does not match: another key, or bytes changed on the way.
    case authenticationFailed
    /// The frame is not laid out as its codec's E2EE format says (docs/e2ee.md).
    case malformedFrame
    /// The sender's counter has run out for this key (2^64 frames): a new key is needed.
    case counterExhausted
}
