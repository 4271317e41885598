// libFuzzer target: sealed strings (docs/sealed-strings.md), which reach `SRTCEngine.decrypt`
// from anywhere: a channel message, IM, a push, a URL. Any input: no trap; whatever parses prints
// back to exactly the input (one spelling per box) and stays within the documented sizes; opening
// with the fuzzer's key or the worked example's never traps, and the example's key opens only
// strings sealed with it (their plaintext then seals back, under the same nonce, to the input).
import RTCCrypto
import SRTCProtocol

private let exampleKey = SealKey.derive(appKey: "5ecr3t-app-key", appId: "app_demo", uid: "alice")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSeal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let sealed = SealedString.parse(text) else { return 0 }
    precondition(sealed.text == text, "parsed into another spelling")
    precondition(text.utf8.count <= SealedString.maxLength)
    precondition(Identifier.isValid(sealed.uid) && !sealed.appId.isEmpty)
    precondition(sealed.box.count >= 28 && sealed.box.count <= 28 + SealedString.maxPlaintextBytes)
    // A key made from the input: authentication fails (or, by a 2^-128 chance, opens) without trapping.
    _ = sealed.open(key: Array(Digest.sha256(Array(text.utf8))))
    if let plaintext = sealed.open(key: exampleKey) {
        let again = SealedString.seal(plaintext, appId: sealed.appId, uid: sealed.uid, key: exampleKey, nonce: Array(sealed.box.prefix(12)))
        precondition(again?.text == text, "opened a box that does not seal back")
    }
    return 0
}
