// libFuzzer target: the signed-request headers and the join tokens, the two things an outsider
// hands the server before anything else is checked (issue #8). Any input: no trap, no overflow,
// and the verdicts stay consistent (a refusal is one of the documented ones; a verified token's
// times really bracket `now`).
//
// Input layout: byte 0 picks the clock (`now` near 1.8e9 or at the ends of Int64), byte 1 the
// window; the rest is split at the first 0x00 into header text and token text. The header text is
// `app_id\nnonce\ntimestamp\nsignature`; missing parts are absent headers.
import RTCCrypto
import SRTCProtocol

private let key = "fuzz-key"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuth(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let clocks: [Int64] = [1_800_000_000, 0, -1, .max, .min, .max - 299, .min + 299]
    let now = clocks[Int(bytes[0]) % clocks.count]
    let window = [Int64(300), 0, .max, .min][Int(bytes[1]) % 4]
    let rest = bytes[2...]
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    let headerText = String(decoding: rest[rest.startIndex..<split], as: UTF8.self)
    let tokenText = split < rest.endIndex ? String(decoding: rest[rest.index(after: split)...], as: UTF8.self) : ""

    // Signed-request headers.
    let parts = headerText.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let names = [RequestSignature.appIdHeader, RequestSignature.nonceHeader, RequestSignature.timestampHeader,
                 RequestSignature.signatureHeader]
    var values: [String: String] = [:]
    for (index, part) in parts.enumerated() { values[names[index]] = part }
    switch SignedRequestHeaders.parse({ values[$0] }) {
    case .success(let signed):
        precondition(signed.nonce.utf8.count <= SignedRequestHeaders.maxNonceBytes)
        precondition(Int64(signed.timestampText) == signed.timestamp)
        let fresh = signed.isFresh(now: now, windowSeconds: window)
        if fresh, window >= 0, window < .max {
            precondition(signed.timestamp >= now.subtractingSaturating(window) && signed.timestamp <= now.addingSaturating(window))
        }
        _ = signed.nonceExpiry(windowSeconds: window)
        _ = signed.verifies(appKey: key, method: "POST", pathAndQuery: "/server/v1/channel/grant", body: Array(tokenText.utf8))
    case .failure(.missingHeader(let name)):
        precondition(values[name]?.isEmpty ?? true)
    case .failure(.nonceTooLong), .failure(.timestampNotANumber):
        break
    }

    // Tokens: the fuzzed text as is, and the fuzzed text as a payload signed with the right key
    // (so the time checks are reached with any claims the JSON decoder accepts).
    _ = try? AccessToken.decodeUnverified(tokenText)
    _ = try? AccessToken.verify(tokenText, now: now) { _ in key }
    let header = Encoding.base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let input = header + "." + Encoding.base64URL(Array(tokenText.utf8))
    let signed = input + "." + Encoding.base64URL(Digest.hmacSHA256(key: Array(key.utf8), message: Array(input.utf8)))
    do {
        let claims = try AccessToken.verify(signed, now: now, leeway: 5) { _ in key }
        precondition(now < claims.exp.addingSaturating(5) && now.addingSaturating(5) >= claims.nbf, "accepted outside its times")
        _ = AccessToken.sign(claims, key: key)
    } catch {
        precondition([.malformed, .expired, .notYetValid].contains(error), "unexpected \(error)")
    }
    return 0
}
