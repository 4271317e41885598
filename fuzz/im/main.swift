// libFuzzer target for the IM protocol's JSON (docs/im.md): the envelope and every request's
// payload as the server decodes them, and every message's payload as the SDK decodes it.
// Built by `fuzz/run-all`; a crash here is a bug (decoding may only throw).
import Foundation
#if canImport(SRTCProtocol)
import SRTCProtocol
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func imFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    guard let head = try? JSONEnvelope.head(of: text, maxBytes: 64 * 1024) else { return 0 }
    _ = head.error?.errorCode
    _ = try? JSONEnvelope.payload(IMLoginRequest.self, from: text)
    _ = try? JSONEnvelope.payload(IMSendRequest.self, from: text)
    _ = try? JSONEnvelope.payload(IMAckRequest.self, from: text)
    _ = try? JSONEnvelope.payload(IMInviteRequest.self, from: text)
    _ = try? JSONEnvelope.payload(IMCallRequest.self, from: text)
    _ = try? JSONEnvelope.payload(IMLoginResponse.self, from: text)
    if let message = try? JSONEnvelope.payload(IMMessage.self, from: text) {
        // A decoded entry encodes and decodes back to itself.
        let again = try? JSONEnvelope.payload(IMMessage.self, from: JSONEnvelope.event("message", message))
        precondition(again == message, "IM message round trip changed it")
    }
    return 0
}
