/// Why RTP bytes could not be read (RFC 3550 §5.1, RFC 8285).
public enum RTPError: Error, Sendable, Equatable {
    /// Fewer than the 12 bytes of the fixed RTP header.
    case packetTooShort
    /// The version field is not 2.
    case unsupportedVersion(UInt8)
    /// The CSRC count says more CSRC identifiers than the packet holds.
    case csrcOverrun
    /// The X bit is set but the 4-byte extension header does not fit.
    case extensionHeaderOverrun
    /// The extension length (in 32-bit words) runs past the end of the packet.
    case extensionOverrun
    /// An RFC 8285 element's length runs past the end of the extension block.
    case extensionElementOverrun
    /// The P bit is set but the last byte (the padding count) is 0 (RFC 3550 §5.1).
    case paddingLengthZero
    /// The padding count is larger than the bytes after the header.
    case paddingOverrun
    /// A known extension (audio level, abs-send-time, …) has a value of the wrong size or content.
    case invalidExtensionValue
}
