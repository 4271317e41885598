// libFuzzer target for RED payloads (RFC 2198 §3): the reader must accept or name what it refuses,
// keep every block inside the payload, and a payload with at most one redundant block written again
// by `REDPayloadWriter` must read back to the same blocks. Built by `fuzz/run-all`.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func redFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // Rewriting block payload types (a forwarder) stays inside any bytes and changes only their
    // low seven bits where it writes; a payload that read keeps its blocks.
    var rewritten = Array(input)
    rewritten.withUnsafeMutableBytes { REDPayloadWriter.setBlockPayloadTypes($0, to: 109) }
    for (old, new) in zip(input, rewritten) where old != new { precondition(old & 0x80 == new & 0x80, "the F bit changed") }
    if let before = try? REDPayloadView(input) {
        rewritten.withUnsafeBytes { bytes in
            guard let after = try? REDPayloadView(bytes) else { preconditionFailure("a rewritten payload no longer reads") }
            precondition(after.primary == REDBlock(payloadType: 109, timestampOffset: 0, range: before.primary.range), "the primary moved")
        }
    }
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
