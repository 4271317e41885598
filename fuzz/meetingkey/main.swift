// libFuzzer target: the key-exchange messages of end-to-end encrypted meetings (docs/e2ee.md,
// "E2EE meetings"), which any member of a meeting's channel can send to any other. Any input: the
// message parser and the grant parser answer a value or a `MeetingKeyMessageError`, never trap;
// what parses writes back to exactly its input.
import SMeetingProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMeetingKey(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let message = try? MeetingKeyMessage(parsing: input) {
        precondition(message.bytes == input, "a parsed key message writes back to other bytes")
    }
    if let grant = try? MeetingKeyGrant(parsing: input) {
        precondition(grant.bytes == input, "a parsed grant writes back to other bytes")
    }
    return 0
}
