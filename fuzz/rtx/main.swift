// libFuzzer target for RTX packets (RFC 4588 §4): unwrapping arbitrary bytes must stay inside the
// input and output buffers and give a packet that parses as RTP, with the OSN as its number; a
// packet that wraps must unwrap back to its payload (without padding). Built by `fuzz/run-all`.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func rtxFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // The first octet, when there is one, sizes the output buffer: short ones must be refused, not overrun.
    let outSize = size > 0 ? Int(input[0]) * 8 : 0
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: max(outSize, 1), alignment: 1)
    defer { out.deallocate() }
    let target = UnsafeMutableRawBufferPointer(rebasing: out[0 ..< outSize])
    if let length = RTXPacket.unwrap(input, into: target, ssrc: 0x0102_0304, payloadType: 96) {
        precondition(length <= outSize && length + RTXPacket.overhead <= size, "unwrap grew the packet")
        let rtx = try! RTPPacketView(input)
        guard let view = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: target[0 ..< length])) else {
            preconditionFailure("an unwrapped packet does not parse")
        }
        precondition(view.ssrc == 0x0102_0304 && view.payloadType == 96 && view.paddingLength == 0, "header not rewritten")
        precondition(view.sequenceNumber == UInt16(rtx.payload[0]) << 8 | UInt16(rtx.payload[1]), "the OSN is not the number")
        precondition(Array(view.payload) == Array(rtx.payload.dropFirst(2)), "the payload changed")
    }
    // Wrapping the same bytes as an original: in a buffer 2 octets larger, and back.
    let room = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 2, alignment: 1)
    defer { room.deallocate() }
    if size > 0 { room.copyMemory(from: input) }
    guard let original = try? RTPPacketView(input),
          let wrapped = RTXPacket.wrap(room, length: size, ssrc: 5, sequenceNumber: 6, payloadType: 97) else { return 0 }
    let back = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 2, alignment: 1)
    defer { back.deallocate() }
    guard let length = RTXPacket.unwrap(UnsafeRawBufferPointer(rebasing: room[0 ..< wrapped]), into: back, ssrc: original.ssrc,
                                        payloadType: original.payloadType) else { preconditionFailure("a wrapped packet does not unwrap") }
    let again = try! RTPPacketView(UnsafeRawBufferPointer(rebasing: back[0 ..< length]))
    precondition(again.sequenceNumber == original.sequenceNumber && Array(again.payload) == Array(original.payload), "round trip changed it")
    return 0
}
