#if canImport(RTCNet)
import RTCNet
#endif
// libFuzzer target for the WebSocket frame parser and message receiver (both directions).
// Built by fuzz/run-all against the RTCNet module (see README.md).

@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for serverSide in [true, false] {
        var receiver = WebSocketReceiver(expectsMaskedFrames: serverSide, maxMessageSize: 1024)
        var buffer = ByteBuffer(bytes)
        // Every event consumes at least a 2-byte header, so this loop is bounded.
        for _ in 0...bytes.count {
            let before = buffer.readableBytes
            do {
                guard let event = try receiver.next(from: &buffer) else { break }
                precondition(buffer.readableBytes < before, "an event consumed nothing")
                switch event {
                case .message(.binary(let payload)): precondition(payload.count <= 1024)
                case .message(.text(let text)): precondition(text.utf8.count <= 1024)
                case .ping(let payload), .pong(let payload): precondition(payload.count <= 125)
                case .close(let code, _): precondition(code?.isAllowedOnWire ?? true)
                }
            } catch {
                let code = error.closeCode.rawValue
                precondition(code == 1002 || code == 1007 || code == 1009, "unexpected close code \(code)")
                break
            }
        }
    }
    // Re-encoding a parsed frame must give back the bytes it came from (unmasked server frames).
    let parser = WebSocketFrameParser(expectsMaskedFrames: false, maxPayloadSize: 1 << 16)
    var buffer = ByteBuffer(bytes)
    if let frame = try? parser.next(from: &buffer) {
        let consumed = bytes.count - buffer.readableBytes
        let encoded = frame.encoded()
        // Only minimal length encodings round-trip exactly.
        if encoded.count == consumed { precondition(encoded == Array(bytes[0..<consumed]), "re-encoding differs") }
    }
    return 0
}
