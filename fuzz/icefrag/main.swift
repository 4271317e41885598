// libFuzzer target: trickle-ice-sdpfrag bodies of WHIP/WHEP PATCH (RFC 8840 §9). A parsed
// fragment must serialize to text that parses back equal.
import RTCWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICEFragment(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let parsed = try? ICEFragment(parsing: text) else { return 0 }
    guard let again = try? ICEFragment(parsing: parsed.serialize()) else {
        preconditionFailure("serialized fragment does not parse")
    }
    precondition(again == parsed, "round trip changed the fragment")
    _ = parsed.credentials
    _ = parsed.allCandidates
    return 0
}
