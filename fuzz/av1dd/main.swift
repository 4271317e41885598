// libFuzzer target for the AV1 Dependency Descriptor header extension (av1-rtp-spec Appendix A).
// Built by `fuzz/run-all` with `swiftc -sanitize=fuzzer,address -parse-as-library`; a crash or
// failed check here is a bug.
//
// The input is two extension values of one stream: the first byte gives the first value's length,
// the rest is the second, read with the structure the first may have carried. Each value that
// parses is re-serialised and parsed again (the two must agree), and rewritten with an active
// decode targets mask as the SFU does (the mask must read back, the frame unchanged).
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func av1DependencyDescriptorFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let split = min(size, 1 + Int(input[0]))
    var reader = DependencyDescriptorReader()
    for value in [UnsafeRawBufferPointer(rebasing: input[1 ..< split]), UnsafeRawBufferPointer(rebasing: input[split...])] {
        let before = reader
        guard let descriptor = try? reader.read(value) else {
            precondition(reader.structure == before.structure, "a failed read changed the kept structure")
            continue
        }
        check(descriptor, value: value, before: before, after: reader)
    }
    return 0
}

private func check(_ descriptor: DependencyDescriptor, value: UnsafeRawBufferPointer, before: DependencyDescriptorReader,
                   after: DependencyDescriptorReader) {
    // Parse, re-serialise, parse.
    let bytes = descriptor.serialize(structure: after.structure)
    precondition(bytes.count <= value.count, "re-serialised value grew")
    var again = before
    guard let reread = try? again.read(bytes) else { preconditionFailure("the re-serialised value does not parse") }
    precondition(reread == descriptor, "round trip differs")
    if descriptor.carriesStructure { precondition(again.structure == after.structure, "structure round trip differs") }

    // The forwarder's rewrite with a mask.
    let mask = UInt32(truncatingIfNeeded: Int(descriptor.frameNumber) &* 2_654_435_761) & (after.structure?.allDecodeTargets ?? 0)
    var out = [UInt8](repeating: 0xA5, count: descriptor.layout.rewrittenLength())
    let written = out.withUnsafeMutableBytes { descriptor.layout.rewrite(value, activeDecodeTargets: mask, into: $0) }
    precondition(written == out.count, "rewrite length differs")
    var masked = before
    guard let rewritten = try? masked.read(out) else { preconditionFailure("the rewritten value does not parse") }
    precondition(rewritten.activeDecodeTargets == mask, "the mask did not read back")
    var expected = descriptor
    expected.activeDecodeTargets = mask
    precondition(rewritten == expected, "the rewrite changed the frame")
}
