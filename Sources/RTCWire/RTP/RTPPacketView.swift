/// A read-only, non-allocating view of one RTP packet over bytes the caller owns (RFC 3550 §5.1).
///
/// Parsing validates every length once (CSRC list, extension block and its RFC 8285 elements,
/// padding), so the accessors below read without further checks. The view must not outlive the
/// buffer it was made from.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// |            contributing source (CSRC) identifiers             |
/// |      defined by profile       |           length              |  (X=1)
/// |                   header extension data ...                   |
/// ```
public struct RTPPacketView {
    // MARK: - Layout

    /// The whole packet.
    public let bytes: UnsafeRawBufferPointer
    /// Bytes before the payload: fixed header, CSRCs and the extension block.
    public let headerLength: Int
    /// The extension profile when the X bit is set, else nil.
    public let extensionProfile: RTPExtensionProfile?
    /// Offsets of the extension data (after its 4-byte header); empty when there is none.
    public let extensionDataRange: Range<Int>
    /// Padding bytes at the end, including the count byte itself; 0 when P=0.
    public let paddingLength: Int

    /// Size of the fixed header (RFC 3550 §5.1).
    public static let fixedHeaderLength = 12

    // MARK: - Parsing

    /// Validates `bytes` as one RTP packet.
    /// - Throws: `RTPError` naming the first length that does not fit.
    public init(_ bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let count = bytes.count
        guard count >= Self.fixedHeaderLength else { throw .packetTooShort }
        let first = bytes.u8(0)
        let version = first >> 6
        guard version == 2 else { throw .unsupportedVersion(version) }
        var offset = Self.fixedHeaderLength + Int(first & 0x0F) * 4
        guard offset <= count else { throw .csrcOverrun }

        var profile: RTPExtensionProfile? = nil
        var extensionRange = offset ..< offset
        if first & 0x10 != 0 {
            guard offset + 4 <= count else { throw .extensionHeaderOverrun }
            let rawProfile = RTPExtensionProfile(rawValue: bytes.u16(offset))
            let dataStart = offset + 4
            let dataEnd = dataStart + Int(bytes.u16(offset + 2)) * 4
            guard dataEnd <= count else { throw .extensionOverrun }
            extensionRange = dataStart ..< dataEnd
            if rawProfile.hasElements {
                try Self.validateElements(bytes, extensionRange, twoByte: rawProfile.isTwoByte)
            }
            profile = rawProfile
            offset = dataEnd
        }

        var padding = 0
        if first & 0x20 != 0 {
            // RFC 3550 §5.1: the last octet counts the padding octets, itself included.
            guard count > offset else { throw .paddingOverrun }
            padding = Int(bytes.u8(count - 1))
            guard padding != 0 else { throw .paddingLengthZero }
            guard padding <= count - offset else { throw .paddingOverrun }
        }

        self.bytes = bytes
        self.headerLength = offset
        self.extensionProfile = profile
        self.extensionDataRange = extensionRange
        self.paddingLength = padding
    }

    /// Checks each RFC 8285 element lies inside the block (§4.2 one-byte, §4.3 two-byte).
    private static func validateElements(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, twoByte: Bool
    ) throws(RTPError) {
        var cursor = RTPExtensionElements.Cursor(bytes: bytes, range: range, twoByte: twoByte)
        while true {
            switch cursor.advance() {
            case .element: continue
            case .end: return
            case .overrun: throw .extensionElementOverrun
            }
        }
    }

    // MARK: - Fixed header fields

    /// Always 2 for a parsed view.
    @inlinable public var version: UInt8 { bytes[0] >> 6 }
    /// The P bit.
    @inlinable public var hasPadding: Bool { bytes[0] & 0x20 != 0 }
    /// The X bit.
    @inlinable public var hasExtension: Bool { bytes[0] & 0x10 != 0 }
    /// The CC field: number of CSRC identifiers.
    @inlinable public var csrcCount: Int { Int(bytes[0] & 0x0F) }
    /// The M bit.
    @inlinable public var marker: Bool { bytes[1] & 0x80 != 0 }
    /// The 7-bit payload type.
    @inlinable public var payloadType: UInt8 { bytes[1] & 0x7F }
    /// The 16-bit sequence number.
    public var sequenceNumber: UInt16 { bytes.u16(2) }
    /// The 32-bit media timestamp.
    public var timestamp: UInt32 { bytes.u32(4) }
    /// The synchronization source.
    public var ssrc: UInt32 { bytes.u32(8) }

    /// The CSRC at `index` (0 ..< csrcCount).
    public func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return bytes.u32(Self.fixedHeaderLength + index * 4)
    }

    // MARK: - Payload

    /// Offsets of the payload, padding excluded.
    public var payloadRange: Range<Int> { headerLength ..< bytes.count - paddingLength }

    /// The payload bytes, padding excluded (a slice of `bytes`, no copy).
    public var payload: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[payloadRange]) }

    // MARK: - Header extension elements

    /// The RFC 8285 elements in wire order (empty for opaque profiles or no extension).
    public var extensionElements: RTPExtensionElements {
        RTPExtensionElements(bytes: bytes, range: extensionDataRange, profile: extensionProfile)
    }

    /// Offsets of the value of the element with `id`, if present (first match).
    public func extensionValueRange(id: UInt8) -> Range<Int>? {
        for element in extensionElements where element.id == id { return element.valueRange }
        return nil
    }

    /// The value of the element with `id`, if present (a slice of `bytes`, no copy).
    public func extensionValue(id: UInt8) -> UnsafeRawBufferPointer? {
        guard let range = extensionValueRange(id: id) else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    /// The opaque extension data (RFC 3550 §5.3.1) after the 4-byte extension header.
    public var extensionData: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[extensionDataRange])
    }
}
