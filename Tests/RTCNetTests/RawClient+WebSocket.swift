@testable import RTCNet

/// Raw WebSocket frames over a `RawClient`, for sending what a correct client never would.
extension RawClient {
    /// Sends an opening handshake and returns the server's response.
    func upgrade(path: String = "/ws", version: String = "13") async -> HTTPResponse? {
        await send("GET \(path) HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: \(version)\r\n\r\n")
        return await readResponse()
    }

    /// Sends one frame; masked with `key` unless `key` is nil.
    @discardableResult
    func sendFrame(fin: Bool = true, opcode: UInt8, payload: [UInt8], key: UInt32? = 0x1234_5678) async -> Bool {
        var out: [UInt8] = []
        payload.withUnsafeBytes {
            WebSocketFrame.encode(fin: fin, opcode: WebSocketOpcode(rawValue: opcode) ?? .binary, payload: $0, maskingKey: key, into: &out)
        }
        out[0] = (fin ? 0x80 : 0) | opcode  // allows reserved opcodes
        return await send(out)
    }

    /// Reads the next frame from the server (unmasked), or `nil` on close / timeout.
    func readFrame() async -> WebSocketFrame? {
        let parser = WebSocketFrameParser(expectsMaskedFrames: false, maxPayloadSize: 64 << 20)
        while true {
            if let frame = try? parser.next(from: &buffer) { return frame }
            if !(await fill()) { return nil }
        }
    }
}
