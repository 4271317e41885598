/// Incremental reader of WebSocket frames (RFC 6455 §5.2) that enforces the framing rules before
/// buffering a payload: masking direction, reserved bits and opcodes, control-frame limits, the
/// 64-bit length's top bit, and the size limit.
public struct WebSocketFrameParser: Sendable {
    /// `true` on the server: every frame from a client must be masked (§5.1); on the client every
    /// frame from the server must not be.
    public let expectsMaskedFrames: Bool
    /// Largest payload accepted in one frame (1009 past it).
    public let maxPayloadSize: Int

    /// - Parameters:
    ///   - expectsMaskedFrames: `true` on the server side.
    ///   - maxPayloadSize: largest payload of one frame.
    public init(expectsMaskedFrames: Bool, maxPayloadSize: Int) {
        self.expectsMaskedFrames = expectsMaskedFrames
        self.maxPayloadSize = maxPayloadSize
    }

    /// Reads the next complete frame from `buffer`, consuming its bytes; `nil` when incomplete.
    public func next(from buffer: inout ByteBuffer) throws(WebSocketError) -> WebSocketFrame? {
        guard let b0 = buffer.byte(at: 0), let b1 = buffer.byte(at: 1) else { return nil }
        let fin = b0 & 0x80 != 0
        // RSV1-3 need a negotiated extension; we negotiate none (§5.2).
        guard b0 & 0x70 == 0 else { throw .protocolViolation("reserved bits set") }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            throw .protocolViolation("reserved opcode \(b0 & 0x0F)")
        }
        let masked = b1 & 0x80 != 0
        guard masked == expectsMaskedFrames else {
            throw .protocolViolation(masked ? "masked frame from server" : "unmasked frame from client")
        }
        let length7 = Int(b1 & 0x7F)
        if opcode.isControl {
            guard fin else { throw .protocolViolation("fragmented control frame") }
            guard length7 <= 125 else { throw .protocolViolation("control frame longer than 125 bytes") }
        }
        var offset = 2
        var length = length7
        if length7 == 126 {
            guard let hi = buffer.byte(at: 2), let lo = buffer.byte(at: 3) else { return nil }
            length = Int(hi) << 8 | Int(lo)
            offset = 4
        } else if length7 == 127 {
            guard buffer.readableBytes >= 10 else { return nil }
            var value: UInt64 = 0
            for i in 2..<10 { value = value << 8 | UInt64(buffer.byte(at: i) ?? 0) }
            // The most significant bit MUST be 0 (§5.2).
            guard value & (1 << 63) == 0 else { throw .protocolViolation("64-bit length with the top bit set") }
            guard value <= UInt64(maxPayloadSize) else { throw .messageTooBig(limit: maxPayloadSize) }
            length = Int(value)
            offset = 10
        }
        guard length <= maxPayloadSize else { throw .messageTooBig(limit: maxPayloadSize) }
        var key: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        if masked {
            guard buffer.readableBytes >= offset + 4 else { return nil }
            key = (buffer.byte(at: offset) ?? 0, buffer.byte(at: offset + 1) ?? 0, buffer.byte(at: offset + 2) ?? 0, buffer.byte(at: offset + 3) ?? 0)
            offset += 4
        }
        guard buffer.readableBytes - offset >= length, var payload = buffer.bytes(at: offset, count: length) else { return nil }
        buffer.moveReaderIndex(by: offset + length)
        if masked { Self.unmask(&payload, key: key) }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    /// XORs the payload with the 4-byte key, a word at a time where possible (§5.3).
    static func unmask(_ payload: inout [UInt8], key: (UInt8, UInt8, UInt8, UInt8)) {
        let k = [key.0, key.1, key.2, key.3]
        let word = UInt64(k[0]) | UInt64(k[1]) << 8 | UInt64(k[2]) << 16 | UInt64(k[3]) << 24
        let wide = word | word << 32
        payload.withUnsafeMutableBytes { raw in
            let count = raw.count
            var i = 0
            while i + 8 <= count {
                let v = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                raw.storeBytes(of: v ^ wide.littleEndian, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < count {
                raw[i] ^= k[i & 3]
                i += 1
            }
        }
    }
}
