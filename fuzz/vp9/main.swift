// libFuzzer target for the VP9 payload descriptor (RFC 9628 §4.2) and its scalability structure
// (§4.2.1). Built by `fuzz/run-all` with `swiftc -sanitize=fuzzer,address -parse-as-library`; a
// crash or failed check here is a bug.
//
// The whole input is one RTP payload: parse it; when it parses, read its SS, re-serialise both and
// parse again: the two parses must agree.
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func vp9FuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    _ = VP9.isKeyFrame(payload: input)
    guard let (descriptor, length) = try? VP9PayloadDescriptor.parse(input) else { return 0 }
    precondition(length >= 1 && length < size, "descriptor length out of bounds")
    var structure: VP9ScalabilityStructure?
    if let range = descriptor.scalabilityStructureRange {
        precondition(range.lowerBound >= 1 && range.upperBound <= length, "SS range outside the descriptor")
        guard let parsed = try? VP9ScalabilityStructure.parse(UnsafeRawBufferPointer(rebasing: input[range])) else {
            preconditionFailure("an SS the descriptor accepted does not parse")
        }
        if let sid = descriptor.spatialID { precondition(Int(sid) < parsed.spatialLayers, "SID beyond the SS") }
        structure = parsed
    }
    let rewritten = descriptor.bytes(structure: structure)
    precondition(rewritten.count == length, "re-serialised length differs")
    guard let again = try? VP9PayloadDescriptor.parse(rewritten + [0]) else { preconditionFailure("round trip does not parse") }
    precondition(again.descriptor == descriptor, "round trip differs")
    return 0
}
