// libFuzzer target for RFC 4571 deframing (ICE-TCP, RFC 6544): the input is fed in pieces whose
// sizes come from its first byte; every packet handed out must re-frame to the bytes it came from.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func rfc4571FuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let step = Int(input[0]) + 1
    var deframer = RFC4571Deframer()
    var offset = 1
    var total = 0
    while offset < size {
        let end = min(offset + step, size)
        do {
            try deframer.push(UnsafeRawBufferPointer(rebasing: input[offset..<end])) { packet in
                precondition(!packet.isEmpty && packet.count <= 65_535, "packet outside the frame limits")
                total += 2 + packet.count
            }
        } catch {
            return 0
        }
        precondition(deframer.bufferedCount <= 2 + 65_535, "buffer beyond one frame")
        offset = end
    }
    precondition(total + deframer.bufferedCount == size - 1, "bytes lost or invented")
    return 0
}
