/// Writes an RTP header (RFC 3550 §5.1) with RFC 8285 header extensions straight into a send
/// buffer, so sending builds no intermediate packet value: the one-byte form (§4.2), or the
/// two-byte form (§4.3) when a value is longer than 16 bytes (an AV1 Dependency Descriptor with
/// its template structure; the offer announced `a=extmap-allow-mixed`, §6).
package struct RTPHeaderWriter {
    /// Longest element value kept.
    package static let maxValueLength = 64

    /// One extension element: its negotiated id (1–14) and value (1–64 bytes).
    package struct Element {
        package var id: UInt8
        var value: InlineArray<64, UInt8>
        var length: Int

        /// An element holding `bytes` (1–64 of them); nil for an id outside the one-byte form's 1–14.
        package init?(id: UInt8, bytes: some Collection<UInt8>) {
            guard (1...14).contains(id), !bytes.isEmpty else { return nil }
            self.id = id
            value = InlineArray(repeating: 0)
            length = min(RTPHeaderWriter.maxValueLength, bytes.count)
            for (index, byte) in bytes.prefix(RTPHeaderWriter.maxValueLength).enumerated() { value[index] = byte }
        }

        /// Overwrites byte `index` of the value (`index` < its length).
        package mutating func setByte(_ index: Int, _ byte: UInt8) {
            precondition(index < length, "outside the element's value")
            value[index] = byte
        }
    }

    /// Whether `elements` need the two-byte form (a value over 16 bytes).
    @inline(__always)
    static func needsTwoByte(_ elements: [Element]) -> Bool {
        for element in elements where element.length > 16 { return true }
        return false
    }

    /// Bytes the header takes with `elements`: 12, plus the extension block (4 + elements, padded to 32 bits).
    package static func headerLength(_ elements: [Element]) -> Int {
        guard !elements.isEmpty else { return 12 }
        let elementHeader = needsTwoByte(elements) ? 2 : 1
        var data = 0
        for element in elements { data += elementHeader + element.length }
        return 12 + 4 + (data + 3) & ~3
    }

    /// Writes the header at the start of `buffer` and returns its length.
    /// - Precondition: `buffer.count >= headerLength(elements)`.
    package static func write(into buffer: UnsafeMutableRawBufferPointer, marker: Bool, payloadType: UInt8, sequenceNumber: UInt16,
                      timestamp: UInt32, ssrc: UInt32, elements: [Element]) -> Int {
        let length = headerLength(elements)
        precondition(buffer.count >= length, "RTP header does not fit")
        buffer[0] = 0x80 | (elements.isEmpty ? 0 : 0x10) // V=2, P=0, X, CC=0
        buffer[1] = (marker ? 0x80 : 0) | (payloadType & 0x7F)
        put16(buffer, 2, sequenceNumber)
        put32(buffer, 4, timestamp)
        put32(buffer, 8, ssrc)
        guard !elements.isEmpty else { return 12 }
        // RFC 8285 §4.2: profile 0xBEDE, length in 32-bit words, then ID(4) | L-1(4) | value;
        // §4.3: profile 0x1000 (appbits 0), then ID(8) | L(8) | value.
        let twoByte = needsTwoByte(elements)
        put16(buffer, 12, twoByte ? 0x1000 : 0xBEDE)
        put16(buffer, 14, UInt16((length - 16) / 4))
        var offset = 16
        for element in elements {
            if twoByte {
                buffer[offset] = element.id
                buffer[offset + 1] = UInt8(element.length)
                offset += 2
            } else {
                buffer[offset] = element.id << 4 | UInt8(element.length - 1)
                offset += 1
            }
            for i in 0..<element.length { buffer[offset + i] = element.value[i] }
            offset += element.length
        }
        while offset < length { buffer[offset] = 0; offset += 1 }
        return length
    }

    private static func put16(_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt16) {
        buffer[offset] = UInt8(value >> 8)
        buffer[offset + 1] = UInt8(value & 0xFF)
    }

    private static func put32(_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt32) {
        for i in 0..<4 { buffer[offset + i] = UInt8((value >> (24 - 8 * UInt32(i))) & 0xFF) }
    }
}
