/// The text-valued SDES header extensions: `mid` (RFC 8843 §15), `rid` (RFC 8852 §3.1) and
/// `repaired-rid` (RFC 8852 §3.2). Each value is 1–255 bytes of UTF-8 (16 in the one-byte form).
///
/// On the forwarding path compare the raw bytes from `RTPPacketView.extensionValue(id:)` with
/// `matches(_:)` instead of making a `String`.
public struct StreamIdentifierExtension: Hashable, Sendable {
    /// The identifier text.
    public var value: String

    /// - Precondition: 1–255 UTF-8 bytes.
    public init(_ value: String) {
        precondition((1 ... 255).contains(value.utf8.count), "SDES header extension values are 1–255 bytes")
        self.value = value
    }

    /// Reads an element's value. Trailing zero bytes are dropped: some senders pad the value.
    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        var end = value.count
        while end > 0, value[end - 1] == 0 { end -= 1 }
        guard end > 0 else { throw .invalidExtensionValue }
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: value[0 ..< end]), as: UTF8.self) else {
            throw .invalidExtensionValue
        }
        self.value = text
    }

    /// Reads an element's value.
    public init(parsing value: [UInt8]) throws(RTPError) {
        self = try withRawBytes(value) { (raw) throws(RTPError) in try StreamIdentifierExtension(parsing: raw) }
    }

    /// The value's bytes.
    public func serialize() -> [UInt8] { Array(value.utf8) }

    /// True when `raw` (an element value, trailing zero padding allowed) spells `text`; no allocation.
    public static func matches(_ raw: UnsafeRawBufferPointer, _ text: String) -> Bool {
        var end = raw.count
        while end > 0, raw[end - 1] == 0 { end -= 1 }
        var utf8 = text.utf8.makeIterator()
        for index in 0 ..< end {
            guard let expected = utf8.next(), expected == raw[index] else { return false }
        }
        return utf8.next() == nil
    }
}
