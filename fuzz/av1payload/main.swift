// libFuzzer target for the AV1 RTP depacketizer (av1-rtp-spec §4.4: aggregation header, OBU
// elements with and without lengths, Y/Z continuations) behind the in-order assembler, and the
// packetizer's temporal-unit parser (AV1 §5.3 low-overhead format), and the receive path's payload
// checks (`AV1.startsOBU`, `AV1.startsWithSequenceHeader`, the jitter buffer's AV1 assembly), and
// the recorder's sequence header search (`AV1OBU.sequenceHeader(inTemporalUnit:)`).
// The input is cut into payloads
// by a control byte each (length in the low 6 bits, marker in bit 6, timestamp step in bit 7); a
// unit the assembler completes is packetized again and must reassemble without an error.
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func av1PayloadFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // The whole input as a temporal unit: a sequence header found lies inside it (a recording's av1C).
    if let header = AV1OBU.sequenceHeader(inTemporalUnit: input) {
        precondition(header.upperBound <= size && AV1OBU.type(input[header.lowerBound]) == AV1OBU.sequenceHeader, "sequence header out of the unit")
    }
    var packetizer = AV1Packetizer(maxPayloadSize: 64)
    try? packetizer.packetize(input, isKeyFrame: true) { payload, _ in precondition(payload.count <= 64, "payload too large") }
    var assembler = AV1FrameAssembler(maxFrameSize: 1 << 16)
    var jitter = VideoJitterBuffer(configuration: { var c = VideoJitterBuffer.Configuration(); c.codec = .av1; return c }())
    var offset = 0, sequence: UInt16 = 0, timestamp: UInt32 = 0
    while offset < input.count {
        let control = input[offset]
        let length = min(Int(control & 0x3F), input.count - offset - 1)
        let payload = UnsafeRawBufferPointer(rebasing: input[(offset + 1)..<(offset + 1 + length)])
        timestamp &+= UInt32(control >> 7)
        if AV1.startsWithSequenceHeader(payload: payload) { precondition(AV1.startsOBU(payload: payload), "a header read from a continuation") }
        _ = try? jitter.insert(payload: Array(payload), sequenceNumber: sequence, timestamp: timestamp, marker: control & 0x40 != 0)
        while let frame = jitter.popFrame(nowUs: Int64(sequence) * 50_000) {
            precondition(!frame.data.isEmpty, "an empty frame came out")
        }
        if let output = try? assembler.push(payload: payload, sequenceNumber: sequence, timestamp: timestamp,
                                            marker: control & 0x40 != 0), let frame = output.frame {
            precondition(frame.data.count <= 1 << 16, "unit larger than the limit")
            // What the assembler writes is a well-formed temporal unit: it packetizes, and the
            // payloads reassemble without an error.
            var again = AV1FrameAssembler()
            frame.data.withUnsafeBytes { bytes in
                do {
                    var index: UInt16 = 0
                    try packetizer.packetize(bytes, isKeyFrame: true) { payload, isLast in
                        _ = try again.push(payload: payload, sequenceNumber: index, timestamp: 0, marker: isLast)
                        index &+= 1
                    }
                } catch {
                    preconditionFailure("an assembled unit did not go round: \(error)")
                }
            }
        }
        offset += 1 + length
        sequence &+= 1
    }
    return 0
}
