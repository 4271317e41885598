/// One RFC 8285 header extension element: a local id and its value.
///
/// The value is held as an `ArraySlice` so that parsing a packet copies all element values into
/// one shared buffer (one allocation) instead of one array per element.
public struct RTPHeaderExtensionElement: Hashable, Sendable {
    /// Local identifier negotiated by `a=extmap` (1–14 fit the one-byte form, up to 255 the two-byte form).
    public let id: UInt8
    /// The element's data, without copying.
    public let bytes: ArraySlice<UInt8>

    /// - Precondition: `id` is not 0 (reserved for padding) and `value` has at most 255 bytes.
    public init(id: UInt8, value: [UInt8]) {
        self.init(id: id, bytes: value[...])
    }

    /// - Precondition: `id` is not 0 (reserved for padding) and `bytes` has at most 255 bytes.
    public init(id: UInt8, bytes: ArraySlice<UInt8>) {
        precondition(id != 0, "RTP header extension id 0 is reserved for padding (RFC 8285 §4.1)")
        precondition(bytes.count <= 255, "RTP header extension values hold at most 255 bytes (RFC 8285 §4.3)")
        self.id = id
        self.bytes = bytes
    }

    /// The element's data as an array (a copy).
    public var value: [UInt8] { Array(bytes) }

    /// True when the element can use the one-byte form: id 1–14 and 1–16 bytes (RFC 8285 §4.2).
    public var fitsOneByteForm: Bool { id <= 14 && (1 ... 16).contains(bytes.count) }

    // Equality and hashing look at the bytes only, not at the slice's position in its buffer.
    public static func == (a: RTPHeaderExtensionElement, b: RTPHeaderExtensionElement) -> Bool {
        a.id == b.id && a.bytes.elementsEqual(b.bytes)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(bytes.count)
        for byte in bytes { hasher.combine(byte) }
    }
}
