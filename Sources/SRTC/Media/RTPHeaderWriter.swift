/// Writes an RTP header (RFC 3550 §5.1) with RFC 8285 one-byte header extensions straight into a
/// send buffer, so sending builds no intermediate packet value.
package struct RTPHeaderWriter {
    /// One extension element: its negotiated id (1–14) and value (1–16 bytes).
    package struct Element {
        package var id: UInt8
        var value: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
        var length: Int

        /// An element holding `bytes` (1–16 of them); nil for an id outside the one-byte form's 1–14.
        package init?(id: UInt8, bytes: some Collection<UInt8>) {
            guard (1...14).contains(id), !bytes.isEmpty else { return nil }
            self.id = id
            value = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            length = min(16, bytes.count)
            withUnsafeMutableBytes(of: &value) { raw in
                for (index, byte) in bytes.prefix(16).enumerated() { raw[index] = byte }
            }
        }
    }

    /// Bytes the header takes with `elements`: 12, plus the extension block (4 + elements, padded to 32 bits).
    package static func headerLength(_ elements: [Element]) -> Int {
        guard !elements.isEmpty else { return 12 }
        var data = 0
        for element in elements { data += 1 + element.length }
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
        // RFC 8285 §4.2: profile 0xBEDE, length in 32-bit words, then ID(4) | L-1(4) | value.
        put16(buffer, 12, 0xBEDE)
        put16(buffer, 14, UInt16((length - 16) / 4))
        var offset = 16
        for element in elements {
            buffer[offset] = element.id << 4 | UInt8(element.length - 1)
            offset += 1
            withUnsafeBytes(of: element.value) { raw in
                for i in 0..<element.length { buffer[offset + i] = raw[i] }
            }
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
