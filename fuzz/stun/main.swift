// libFuzzer target for the STUN parser (RFC 8489): framing, attribute walk, MESSAGE-INTEGRITY
// position rules, FINGERPRINT, XOR-MAPPED-ADDRESS and ERROR-CODE decoding, integrity checking,
// and the re-encode round trip. Built by `fuzz/run-all` with `swiftc -sanitize=fuzzer,address
// -parse-as-library`; a crash or failed precondition here is a bug.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func stunFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    _ = STUNMessage.isSTUN(input)
    guard let message = try? STUNMessage(parsing: input) else { return 0 }
    _ = message.username
    _ = message.priority
    _ = message.iceControlling
    _ = message.iceControlled
    _ = message.errorCode
    _ = try? message.xorMappedAddress()
    _ = try? message.verifyIntegrity(in: input, key: Array("fuzz-password".utf8))

    // Re-encoding what parsed must parse again to the same message.
    let encoded = message.encoded(integrityKey: nil, fingerprint: message.hadFingerprint)
    guard let again = try? STUNMessage(bytes: encoded) else { preconditionFailure("re-encoded message does not parse") }
    precondition(again.type == message.type, "type changed in round trip")
    precondition(again.transactionID == message.transactionID, "transaction id changed in round trip")
    precondition(again.attributes == message.attributes, "attributes changed in round trip")

    // Signing must produce a message whose integrity verifies (when the two added attributes
    // still fit the 16-bit length field).
    guard encoded.count + 32 <= 20 + 0xFFFF else { return 0 }
    let signed = message.encoded(integrityKey: [1, 2, 3], fingerprint: true)
    guard let parsedSigned = try? STUNMessage(bytes: signed) else { preconditionFailure("signed message does not parse") }
    precondition((try? parsedSigned.verifyIntegrity(in: signed, key: [1, 2, 3])) != nil, "own integrity does not verify")
    return 0
}
