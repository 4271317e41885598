// libFuzzer target for the H.264 RTP depacketizer (RFC 6184 §5.6-5.8: single NAL units, STAP-A,
// FU-A) behind both the in-order assembler and the SDK's reordering jitter buffer, the SFU's
// key-frame test on payloads and the Annex B splitter. The input is cut into payloads by a
// control byte each (length in the low 6 bits, marker in bit 6, timestamp step in bit 7); the
// jitter buffer sees each payload at a sequence number that sometimes steps back.
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func h264FuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    _ = H264.nalUnits(annexB: input)
    var assembler = H264FrameAssembler(maxFrameSize: 1 << 16)
    var configuration = VideoJitterBuffer.Configuration()
    configuration.codec = .h264
    configuration.capacity = 64
    var jitter = VideoJitterBuffer(configuration: configuration)
    var offset = 0, sequence: UInt16 = 0
    while offset < input.count {
        let control = input[offset]
        let length = min(Int(control & 0x3F), input.count - offset - 1)
        let payload = UnsafeRawBufferPointer(rebasing: input[(offset + 1)..<(offset + 1 + length)])
        _ = H264.isKeyFrame(payload: payload)
        if let output = try? assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(control >> 7),
                                            marker: control & 0x40 != 0), let frame = output.frame {
            precondition(frame.data.count <= 1 << 16, "frame larger than the limit")
        }
        let reordered = control & 0x07 == 0x07 ? sequence &- 2 : sequence
        _ = try? jitter.insert(payload: Array(payload), sequenceNumber: reordered, timestamp: UInt32(control >> 7),
                               marker: control & 0x40 != 0)
        for frame in jitter.popFrames(nowUs: Int64(offset) * 10_000) {
            precondition(!frame.data.isEmpty, "an empty access unit")
        }
        _ = jitter.missingSequenceNumbers(nowUs: Int64(offset) * 10_000)
        sequence &+= 1
        offset += 1 + length
    }
    return 0
}
