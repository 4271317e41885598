/// One WebSocket frame (RFC 6455 §5.2), payload already unmasked.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |     Masking-key (0 or 4 bytes, when MASK is set)  | Payload ... |
/// ```
public struct WebSocketFrame: Sendable, Equatable {
    /// Last fragment of its message.
    public var fin: Bool
    public var opcode: WebSocketOpcode
    /// Application data, unmasked.
    public var payload: [UInt8]

    /// A frame; final and empty unless told otherwise.
    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// Size of the header for a payload of `length` bytes.
    static func headerSize(payloadLength length: Int, masked: Bool) -> Int {
        (length < 126 ? 2 : length <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0)
    }

    /// Appends the wire form of a frame to `out`; with `maskingKey` the payload is masked (§5.3),
    /// as every client-to-server frame must be.
    static func encode(fin: Bool, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, maskingKey: UInt32?, into out: inout [UInt8]) {
        let length = payload.count
        out.reserveCapacity(out.count + headerSize(payloadLength: length, masked: maskingKey != nil) + length)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey != nil ? 0x80 : 0
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
        }
        guard let key = maskingKey else {
            out.append(contentsOf: payload)
            return
        }
        let k = [UInt8(key >> 24), UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key)]
        out.append(contentsOf: k)
        for i in 0..<length { out.append(payload[i] ^ k[i & 3]) }
    }

    /// The wire form of this frame.
    public func encoded(maskingKey: UInt32? = nil) -> [UInt8] {
        var out: [UInt8] = []
        payload.withUnsafeBytes { Self.encode(fin: fin, opcode: opcode, payload: $0, maskingKey: maskingKey, into: &out) }
        return out
    }
}
