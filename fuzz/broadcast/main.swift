// libFuzzer target for the screen-broadcast stream a host app reads from its broadcast extension
// (BroadcastStreamReader, BroadcastMessage; docs/sdk-srtc.md "Screen broadcast"). Built by
// `fuzz/run-all`; a crash or failed check here is a bug.
//
// Input: a first byte saying where to cut, then the stream's bytes, fed to the reader in those
// two pieces. Every message read must encode back to exactly the bytes it came from (the format
// has one encoding per message).
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func broadcastFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let stream = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let split = min(stream.count, Int(data[0]))
    var reader = BroadcastStreamReader()
    var consumed = 0
    var messages: [BroadcastMessage] = []
    /// Reads what is complete; false once the stream was refused (the host would close it).
    func drain() -> Bool {
        while true {
            let before = reader.pendingBytes
            do {
                guard let message = try reader.next() else { return true }
                messages.append(message)
                consumed += before - reader.pendingBytes
            } catch {
                return false
            }
        }
    }
    reader.append(UnsafeRawBufferPointer(rebasing: stream[0..<split]))
    guard drain() else { return 0 }
    reader.append(UnsafeRawBufferPointer(rebasing: stream[split...]))
    guard drain() else { return 0 }
    // What was read encodes to exactly the bytes it was read from.
    var bytes: [UInt8] = []
    for message in messages { message.encode(into: &bytes) }
    precondition(bytes.count == consumed, "re-encoded length differs")
    precondition(bytes.elementsEqual(stream[0..<consumed]), "re-encoded bytes differ")
    return 0
}
