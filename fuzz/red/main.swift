// libFuzzer target for RED payloads (RFC 2198 §3): the reader must accept or name what it refuses,
// keep every block inside the payload, and a payload with at most one redundant block written again
// by `REDPayloadWriter` must read back to the same blocks. Built by `fuzz/run-all`.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func redFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let red = try? REDPayloadView(input) else { return 0 }
    precondition(red.primary.range.upperBound == size, "the primary does not end the payload")
    var end = 0
    for index in 0 ..< red.redundantCount {
        let block = red.redundant(index)
        precondition(block.range.lowerBound >= end && block.range.upperBound <= red.primary.range.lowerBound, "a block outside the payload")
        end = block.range.upperBound
    }
    guard red.redundantCount <= 1 else { return 0 }
    let redundant = red.redundantCount == 1 ? red.redundant(0) : nil
    // The writer gives one payload type to both blocks: only such payloads round-trip.
    if let redundant, redundant.payloadType != red.primary.payloadType { return 0 }
    var out = [UInt8](repeating: 0, count: size + 8)
    let length = out.withUnsafeMutableBytes {
        REDPayloadWriter.write(primary: red.data(red.primary), payloadType: red.primary.payloadType,
                               redundant: redundant.map { red.data($0) }, timestampOffset: UInt32(redundant?.timestampOffset ?? 0), into: $0)
    }
    guard let length else { preconditionFailure("a payload that was read does not fit its own size") }
    out.withUnsafeBytes { bytes in
        let again = try! REDPayloadView(UnsafeRawBufferPointer(rebasing: bytes[0 ..< length]))
        precondition(Array(again.data(again.primary)) == Array(red.data(red.primary)), "the primary changed")
        precondition(again.redundantCount == red.redundantCount, "the redundant block was lost")
        if let redundant {
            let block = again.redundant(0)
            precondition(block.timestampOffset == redundant.timestampOffset && Array(again.data(block)) == Array(red.data(redundant)),
                         "the redundant block changed")
        }
    }
    return 0
}
