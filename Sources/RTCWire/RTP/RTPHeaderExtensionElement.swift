/// One RFC 8285 header extension element: a local id and its value.
public struct RTPHeaderExtensionElement: Hashable, Sendable {
    /// Local identifier negotiated by `a=extmap` (1–14 fit the one-byte form, up to 255 the two-byte form).
    public let id: UInt8
    /// The element's data.
    public let value: [UInt8]

    /// - Precondition: `id` is not 0 (reserved for padding) and `value` has at most 255 bytes.
    public init(id: UInt8, value: [UInt8]) {
        precondition(id != 0, "RTP header extension id 0 is reserved for padding (RFC 8285 §4.1)")
        precondition(value.count <= 255, "RTP header extension values hold at most 255 bytes (RFC 8285 §4.3)")
        self.id = id
        self.value = value
    }

    /// True when the element can use the one-byte form: id 1–14 and 1–16 bytes (RFC 8285 §4.2).
    public var fitsOneByteForm: Bool { id <= 14 && (1 ... 16).contains(value.count) }
}
