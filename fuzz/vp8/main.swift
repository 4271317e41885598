// libFuzzer target for the VP8 RTP depacketizers: payload descriptor parsing (RFC 7741 §4.2), key-frame
// detection, in-order frame assembly and the reordering jitter buffer. Built by `fuzz/run-all` with
// `swiftc -sanitize=fuzzer,address -parse-as-library`; a crash or failed check here is a bug.
//
// Input layout: the whole input is first parsed as one payload; then it is cut into records
// [length:1][flags:1][sequence delta:1][payload: length bytes] fed to both receivers as RTP packets
// (flags bit 0 = marker, bits 1–3 = timestamp step).
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func vp8FuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)

    // One payload: parse, re-serialise, parse again; the two parses must agree.
    if let (descriptor, length) = try? VP8PayloadDescriptor.parse(input) {
        precondition(length >= 1 && length < size, "descriptor length out of bounds")
        let rewritten = descriptor.bytes + [0]
        precondition((try? VP8PayloadDescriptor.parse(rewritten))?.descriptor == descriptor, "round trip differs")
    }
    _ = VP8.isKeyFrame(payload: input)
    _ = VP8.keyFrameSize(bitstream: input)

    // A packet stream for the assembler and the jitter buffer.
    var assembler = VP8FrameAssembler(maxFrameSize: 1 << 16)
    var configuration = VideoJitterBuffer.Configuration()
    configuration.capacity = 64
    var jitter = VideoJitterBuffer(configuration: configuration)
    var offset = 0, sequence: UInt16 = 65_530, timestamp: UInt32 = 0, now: Int64 = 0
    while offset + 3 <= size {
        let length = Int(input[offset]), flags = input[offset + 1], delta = input[offset + 2]
        offset += 3
        let payload = Array(UnsafeRawBufferPointer(rebasing: input[offset ..< min(size, offset + length)]))
        offset += payload.count
        sequence &+= UInt16(delta) &- 2   // mostly forward, sometimes back
        timestamp &+= UInt32(flags >> 1 & 0x07) * 3_000
        let marker = flags & 0x01 != 0
        _ = try? assembler.push(payload: payload, sequenceNumber: sequence, timestamp: timestamp, marker: marker)
        _ = try? jitter.insert(payload: payload, sequenceNumber: sequence, timestamp: timestamp, marker: marker)
        now += 20_000
        for frame in jitter.popFrames(nowUs: now) { precondition(!frame.data.isEmpty, "empty frame emitted") }
        _ = jitter.missingSequenceNumbers(nowUs: now)
        precondition(jitter.packetCount <= 64, "jitter buffer exceeded its capacity")
    }
    return 0
}
