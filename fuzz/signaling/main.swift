// libFuzzer target: the signaling JSON codec (docs/protocol.md), which decodes every text message a
// client sends the server (`decodeClientRequest`) and every message the SDK gets back
// (`decodeServerMessage`). Any input: no trap, a refusal is one of the documented
// `SignalDecodeError`s, and whatever decodes survives a round trip (encode, decode: the same value).
//
// Input layout: byte 0 picks the size limit (the default 64 KiB or a small one, so the limit's own
// branch is reached); the rest is the message text (invalid UTF-8 is replaced, as a WebSocket text
// frame could not carry it anyway).
import SRTCProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignaling(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let limit = data[0] & 1 == 0 ? SignalCodec.defaultMaxMessageBytes : 64
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)

    do {
        let request = try SignalCodec.decodeClientRequest(text, maxBytes: limit)
        let again = try SignalCodec.decodeClientRequest(SignalCodec.encode(request), maxBytes: .max)
        precondition(again == request, "client request changed in a round trip: \(request) → \(again)")
    } catch {
        check(error, textBytes: text.utf8.count, limit: limit)
    }

    do {
        let message = try SignalCodec.decodeServerMessage(text, maxBytes: limit)
        let again = try SignalCodec.decodeServerMessage(SignalCodec.encode(message), maxBytes: .max)
        precondition(again == message, "server message changed in a round trip: \(message) → \(again)")
    } catch {
        check(error, textBytes: text.utf8.count, limit: limit)
    }
    return 0
}

/// A refusal says why, consistently with the input.
private func check(_ error: SignalDecodeError, textBytes: Int, limit: Int) {
    if case .tooLarge(let n) = error { precondition(n == textBytes && n > limit, "tooLarge(\(n)) for \(textBytes) bytes") }
    precondition(!error.description.isEmpty)
    _ = error.requestId
}
