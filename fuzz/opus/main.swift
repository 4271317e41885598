// libFuzzer target for the Opus RTP depacketizer: TOC and frame-packing validation (RFC 6716 §3.4),
// cross-checked against libopus's own `opus_packet_parse`, the in-band FEC (LBRR) flag read only from
// packets that parse, then decoding of packets both accept, and the audio playout buffer. Built by `fuzz/run-all` with `swiftc -sanitize=fuzzer,address -parse-as-library`.
//
// Input layout: the whole input is one Opus packet; then it is cut into records
// [length:1][sequence delta:1][payload: length bytes] fed to the playout buffer.
import COpus
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func opusFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let ours = try? OpusPayload.depacketize(input)

    var toc: UInt8 = 0, payloadOffset: Int32 = 0
    var frames = [UnsafePointer<UInt8>?](repeating: nil, count: 48)
    var sizes = [Int16](repeating: 0, count: 48)
    let reference = size > Int(Int32.max) ? -1 : opus_packet_parse(data, Int32(size), &toc, &frames, &sizes, &payloadOffset)
    precondition((reference >= 0) == (ours != nil), "validation disagrees with libopus")
    if let ours { precondition(ours.frameCount == Int(reference), "frame count disagrees with libopus") }

    // In-band FEC detection reads the first frame's first byte: never for a packet that does not parse.
    let lbrr = OpusPacketInfo.hasLBRR(input)
    if ours == nil || reference <= 0 { precondition(!lbrr, "LBRR read from a packet that does not parse") }

    if ours != nil, let decoder = try? OpusDecoder(channels: 2) {
        var pcm = [Int16](repeating: 0, count: 5_760 * 2)
        _ = pcm.withUnsafeMutableBufferPointer { try? decoder.decode(input, into: $0) }
    }

    var buffer = AudioPlayoutBuffer()
    var offset = 0, sequence: UInt16 = 65_500
    while offset + 2 <= size {
        let length = Int(input[offset]), delta = input[offset + 1]
        offset += 2
        let payload = Array(UnsafeRawBufferPointer(rebasing: input[offset ..< min(size, offset + length)]))
        offset += payload.count
        sequence &+= UInt16(delta) &- 4
        buffer.insert(payload: payload, sequenceNumber: sequence)
        _ = buffer.next()
        precondition(buffer.count <= 128, "playout buffer exceeded its capacity")
    }
    return 0
}
