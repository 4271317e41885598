// libFuzzer target for the H.264 RTP depacketizer (RFC 6184 §5.6-5.8: single NAL units, STAP-A,
// FU-A), the SFU's key-frame test on payloads and the Annex B splitter. The input is cut into
// payloads by a length byte each; every fourth byte of a header decides the marker bit.
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func h264FuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    _ = H264.nalUnits(annexB: input)
    var assembler = H264FrameAssembler(maxFrameSize: 1 << 16)
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
        sequence &+= 1
        offset += 1 + length
    }
    return 0
}
