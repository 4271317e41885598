// libFuzzer target for the Data Channel Establishment Protocol parser (RFC 8832 §5): message
// type, channel types, label/protocol length fields and UTF-8, and the re-encode round trip.
// usrsctp parses the SCTP chunks themselves (fuzzed upstream); DCEP is the framing we parse.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func dcepFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let message = try? DataChannelMessage(parsing: input) else { return 0 }
    let encoded = message.serialized()
    guard let again = try? DataChannelMessage(parsing: encoded) else { preconditionFailure("re-encoded message does not parse") }
    precondition(again == message, "message changed in round trip")
    return 0
}
