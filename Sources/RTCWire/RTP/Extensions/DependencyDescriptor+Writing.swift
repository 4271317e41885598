// Writing Dependency Descriptors (av1-rtp-spec §A.8.2): a whole value from its fields (tests,
// tools, the fuzz target's round trip), and the forwarder's rewrite of one packet's value with
// the active decode targets of one subscriber (§A.4), written straight into a send slot.

extension DependencyDescriptor {
    // MARK: - Whole values

    /// Writes the value from the fields: the extended fields when a structure, a mask or custom
    /// values are carried; custom DTIs, frame diffs and chain diffs only when their flag is set.
    /// - Parameter structure: the structure written when `carriesStructure` (the one the frame
    ///   was read with).
    /// - Returns: bytes written, nil when `buffer` is too small.
    public func write(into buffer: UnsafeMutableRawBufferPointer, structure: DependencyStructure?) -> Int? {
        var w = BitWriter(buffer)
        w.write(startOfFrame)
        w.write(endOfFrame)
        w.write(UInt32(templateID), bits: 6)
        w.write(UInt32(frameNumber), bits: 16)
        let extended = carriesStructure || activeDecodeTargets != nil || customIndications || customFrameDiffs || customChains
        if extended {
            w.write(carriesStructure)
            w.write(activeDecodeTargets != nil)
            w.write(customIndications)
            w.write(customFrameDiffs)
            w.write(customChains)
            if carriesStructure {
                guard let structure else { return nil }
                structure.write(&w)
            }
            if let mask = activeDecodeTargets { w.write(mask, bits: decodeTargetCount) }
            if customIndications {
                for dt in 0 ..< decodeTargetCount { w.write(UInt32(indication(for: dt).rawValue), bits: 2) }
            }
            if customFrameDiffs {
                for j in 0 ..< frameDiffCount {
                    let value = UInt32(frameDiffs[j]) - 1
                    let size = value < 16 ? 1 : value < 256 ? 2 : 3   // next_fdiff_size in 4-bit units
                    w.write(UInt32(size), bits: 2)
                    w.write(value, bits: 4 * size)
                }
                w.write(0, bits: 2)
            }
            if customChains {
                for chain in 0 ..< chainCount { w.write(UInt32(chainDiffs[chain]), bits: 8) }
            }
        }
        w.padToByte()   // with extended fields at least 29 bits: never the 3 bytes that mean none
        return w.overflowed ? nil : w.byteCount
    }

    /// The value's bytes (tests and tools).
    public func serialize(structure: DependencyStructure?) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4096)   // above any structure's size
        let count = bytes.withUnsafeMutableBytes { write(into: $0, structure: structure) } ?? 0
        return Array(bytes.prefix(count))
    }
}

extension DependencyDescriptor.Layout {
    // MARK: - The forwarder's rewrite

    /// Bytes of the value rewritten with an active decode targets mask (`rewrite`).
    @inline(__always)
    public func rewrittenLength() -> Int {
        let head = extended ? maskOffset : 24 + 5
        return (head + decodeTargetCount + frameDefinition.count + 7) / 8
    }

    /// Writes `source` (the value this layout was read from) with active_decode_targets_bitmask
    /// set to `mask` into `out`, bit for bit otherwise: the mandatory fields, the flags
    /// (active_decode_targets_present_flag set), the structure, the new mask, the frame
    /// definition, zero padding (§A.4: a forwarder that changes the set of decode targets it
    /// sends must say so). Does not allocate.
    /// - Returns: bytes written (`rewrittenLength()`), nil when `out` is too small.
    public func rewrite(_ source: UnsafeRawBufferPointer, activeDecodeTargets mask: UInt32,
                        into out: UnsafeMutableRawBufferPointer) -> Int? {
        let length = rewrittenLength()
        guard out.count >= length, source.count >= self.length else { return nil }
        var w = BitWriter(out)
        w.copyBits(of: source, 0 ..< 24)
        if extended {
            w.copyBits(of: source, 24 ..< 25)                 // template_dependency_structure_present_flag
            w.write(true)                                      // active_decode_targets_present_flag
            w.copyBits(of: source, 26 ..< maskOffset)          // custom flags, structure
        } else {
            w.write(0b01000, bits: 5)                          // only active_decode_targets_present_flag
        }
        w.write(mask, bits: decodeTargetCount)
        w.copyBits(of: source, frameDefinition)
        w.padToByte()
        return w.overflowed ? nil : length
    }
}
