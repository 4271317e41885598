/// One RFC 8285 header extension element: a local id and its value.
///
/// Values of up to 16 bytes (everything the one-byte form can carry, and every extension
/// WebRTC uses) are stored inline, so parsing an owned packet allocates nothing per element.
public struct RTPHeaderExtensionElement: Hashable, Sendable {
    /// Local identifier negotiated by `a=extmap` (1–14 fit the one-byte form, up to 255 the two-byte form).
    public let id: UInt8
    private let length: UInt8
    private var inline: (UInt64, UInt64) = (0, 0)
    private var spill: [UInt8]? = nil

    /// - Precondition: `id` is not 0 (reserved for padding) and `value` has at most 255 bytes.
    public init(id: UInt8, value: [UInt8]) {
        self = value.withUnsafeBytes { RTPHeaderExtensionElement(id: id, bytes: $0) }
    }

    /// Copies `bytes` as the value.
    /// - Precondition: `id` is not 0 (reserved for padding) and `bytes` has at most 255 bytes.
    public init(id: UInt8, bytes: UnsafeRawBufferPointer) {
        precondition(id != 0, "RTP header extension id 0 is reserved for padding (RFC 8285 §4.1)")
        precondition(bytes.count <= 255, "RTP header extension values hold at most 255 bytes (RFC 8285 §4.3)")
        self.id = id
        self.length = UInt8(bytes.count)
        if bytes.count <= 16 {
            withUnsafeMutableBytes(of: &inline) { storage in
                UnsafeMutableRawBufferPointer(rebasing: storage[0 ..< bytes.count]).copyMemory(from: bytes)
            }
        } else {
            spill = Array(bytes)
        }
    }

    /// Value size in bytes.
    public var count: Int { Int(length) }

    /// The element's data as an array (a copy).
    public var value: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Calls `body` with the value's bytes, without copying.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let spill { return try spill.withUnsafeBytes(body) }
        var copy = inline
        return try Swift.withUnsafeBytes(of: &copy) { try body(UnsafeRawBufferPointer(rebasing: $0[0 ..< Int(length)])) }
    }

    /// True when the element can use the one-byte form: id 1–14 and 1–16 bytes (RFC 8285 §4.2).
    public var fitsOneByteForm: Bool { id <= 14 && (1 ... 16).contains(length) }

    // Unused inline bytes stay zero, so comparing the words compares the values.
    public static func == (a: RTPHeaderExtensionElement, b: RTPHeaderExtensionElement) -> Bool {
        a.id == b.id && a.length == b.length && a.inline == b.inline && a.spill == b.spill
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(length)
        hasher.combine(inline.0)
        hasher.combine(inline.1)
        hasher.combine(spill)
    }
}
