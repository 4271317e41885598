// Reads the bytes of a VP8 or VP9 payload descriptor in order (RFC 7741 §4.2, RFC 9628 §4.2),
// without allocating: both start with the same picture id field (M bit, 7 or 15 bits) and both
// reject a descriptor that announces more bytes than the payload holds.

/// A cursor over a payload descriptor.
struct PayloadDescriptorReader {
    let payload: UnsafeRawBufferPointer
    /// The next byte to read; the descriptor's length once parsing ends.
    var offset: Int

    init(_ payload: UnsafeRawBufferPointer, offset: Int = 1) {
        self.payload = payload
        self.offset = offset
    }

    /// The next byte.
    /// - Throws: `RTPPayloadError.truncatedDescriptor` past the end.
    @inline(__always)
    mutating func next() throws(RTPPayloadError) -> UInt8 {
        guard offset < payload.count else {
            throw RTPPayloadError.truncatedDescriptor(needed: offset + 1, available: payload.count)
        }
        defer { offset += 1 }
        return payload[offset]
    }

    /// The picture id field: M = 1 makes it 15 bits over two bytes, else 7 bits in one.
    @inline(__always)
    mutating func pictureID() throws(RTPPayloadError) -> (value: UInt16, long: Bool) {
        let high = try next()
        guard high & 0x80 != 0 else { return (UInt16(high), false) }
        return (UInt16(high & 0x7F) << 8 | UInt16(try next()), true)
    }
}
