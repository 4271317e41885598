/// The 16-bit "defined by profile" field that opens an RTP header extension (RFC 3550 §5.3.1).
///
/// `0xBEDE` marks RFC 8285's one-byte element form, `0x100X` the two-byte form (the low four
/// bits are "appbits"); any other value is an opaque, profile-specific extension.
public struct RTPExtensionProfile: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// RFC 8285 §4.2 one-byte header form.
    public static let oneByte = RTPExtensionProfile(rawValue: 0xBEDE)
    /// RFC 8285 §4.3 two-byte header form with appbits 0.
    public static let twoByte = RTPExtensionProfile(rawValue: 0x1000)

    /// True for `0xBEDE`.
    @inlinable public var isOneByte: Bool { rawValue == 0xBEDE }
    /// True for `0x1000`…`0x100F`.
    @inlinable public var isTwoByte: Bool { rawValue & 0xFFF0 == 0x1000 }
    /// True when the data is a list of RFC 8285 elements rather than opaque profile data.
    @inlinable public var hasElements: Bool { isOneByte || isTwoByte }

    public var description: String {
        "0x" + String(rawValue, radix: 16, uppercase: true)
    }
}
