// libFuzzer target for the screen-broadcast stream a host app reads from its broadcast extension
// (BroadcastStreamReader, BroadcastMessage; docs/sdk-srtc.md "Screen broadcast"). Built by
// `fuzz/run-all`; a crash or failed check here is a bug.
//
// Input: the stream's bytes, fed in two pieces split where the first byte says. Every message
// read must encode back to the bytes it came from (apart from video, whose picture is re-packed
// identically, and audio, both exact too: the format has one encoding per message).
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func broadcastFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let split = size > 0 ? min(size, Int(input[0])) : 0
    var reader = BroadcastStreamReader()
    reader.append(UnsafeRawBufferPointer(rebasing: input[0..<split]))
    var consumed = 0
    var messages: [BroadcastMessage] = []
    func drain() -> Bool {
        while true {
            let before = reader.pendingBytes
            guard let message = try? reader.next() else { return reader.pendingBytes == before }
            messages.append(message)
            consumed += before - reader.pendingBytes
        }
    }
    guard drain() else { return 0 }
    reader.append(UnsafeRawBufferPointer(rebasing: input[split..<size]))
    guard drain() else { return 0 }
    // What was read encodes to exactly the bytes it was read from.
    var bytes: [UInt8] = []
    for message in messages { message.encode(into: &bytes) }
    precondition(bytes.count == consumed, "re-encoded length differs")
    precondition(bytes.elementsEqual(input[0..<consumed]), "re-encoded bytes differ")
    return 0
}
