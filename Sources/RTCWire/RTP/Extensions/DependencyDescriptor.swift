// The AV1 Dependency Descriptor RTP header extension (av1-rtp-spec Appendix A, URI
// `https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension`):
//
//   mandatory_descriptor_fields()          24 bits: start_of_frame(1) end_of_frame(1)
//                                          frame_dependency_template_id(6) frame_number(16)
//   extended_descriptor_fields()           when the value is longer than 3 bytes:
//     template_dependency_structure_present_flag(1) active_decode_targets_present_flag(1)
//     custom_dtis_flag(1) custom_fdiffs_flag(1) custom_chains_flag(1)
//     [template_dependency_structure()]    `DependencyStructure`
//     [active_decode_targets_bitmask(DtCnt)]
//   frame_dependency_definition()          the template's values, or custom DTIs (2 bits per
//                                          decode target), frame diffs (next_fdiff_size(2) then
//                                          4·size bits each) and chain diffs (8 bits per chain)
//   zero_padding
//
// A frame's layers, decode target indications, referred frames and chains come from the
// template its id names, in the structure sent with the last key frame. `DependencyDescriptor`
// holds one packet's resolved values in fixed storage (parsing does not allocate);
// `DependencyDescriptorReader` keeps a stream's structure.

// MARK: - Types

/// One packet's Dependency Descriptor, resolved against its stream's template structure.
public struct DependencyDescriptor: Sendable {
    /// Where the variable parts lie in the value, in bits, so a forwarder can rewrite the active
    /// decode targets without reading the structure again (`DependencyDescriptor+Writing.swift`).
    public struct Layout: Sendable, Equatable {
        /// The value has extended fields (it is longer than 3 bytes).
        public var extended = false
        /// Where active_decode_targets_bitmask is or would go: after the flags and the structure.
        public var maskOffset = 24
        /// The value carried active_decode_targets_bitmask.
        public var hadMask = false
        /// The custom DTIs, frame diffs and chain diffs.
        public var frameDefinition = 0 ..< 0
        /// Bytes of the value.
        public var length = 3
        /// DtCnt of the structure the value was read with (the mask's width).
        public var decodeTargetCount = 0
    }

    /// start_of_frame: the packet's payload starts a frame.
    public var startOfFrame = false
    /// end_of_frame: the packet ends a frame (more frames of the temporal unit may follow).
    public var endOfFrame = false
    /// frame_dependency_template_id.
    public var templateID: UInt8 = 0
    /// frame_number: increases by one per frame in decode order, wrapping.
    public var frameNumber: UInt16 = 0
    /// template_dependency_structure_present_flag: the packet carries a new structure (it starts
    /// a coded video sequence: a key frame).
    public var carriesStructure = false
    /// active_decode_targets_bitmask when the packet carries one (bit i: decode target i).
    public var activeDecodeTargets: UInt32?
    /// Whether the frame's DTIs, frame diffs and chain diffs were written out rather than taken
    /// from its template.
    public var customIndications = false
    public var customFrameDiffs = false
    public var customChains = false

    /// The frame's spatial and temporal ids (its template's).
    public var spatialID: UInt8 = 0
    public var temporalID: UInt8 = 0
    /// DtCnt of the structure the frame was read with.
    public var decodeTargetCount = 0
    /// 2 bits per decode target, decode target 0 in the low bits (`indication(for:)`).
    public var indications: UInt64 = 0
    public var frameDiffCount = 0
    /// Differences to the referred frames' numbers; `frameDiffCount` of them are meaningful.
    public var frameDiffs = InlineArray<8, UInt16>(repeating: 0)
    public var chainCount = 0
    /// Per chain, the difference to the previous frame in the chain (0: none needed);
    /// `chainCount` of them are meaningful.
    public var chainDiffs = InlineArray<32, UInt8>(repeating: 0)
    /// Bit positions of the value's parts.
    public var layout = Layout()

    // MARK: - Public API

    public init() {}

    /// The frame's indication for `decodeTarget` (av1-rtp-spec Table A.1).
    @inline(__always)
    public func indication(for decodeTarget: Int) -> DecodeTargetIndication {
        DecodeTargetIndication(rawValue: UInt8(truncatingIfNeeded: indications >> (2 * UInt64(decodeTarget))) & 3)!
    }

    /// The frame numbers differences as an array (tests and tools).
    public var frameDiffList: [Int] { (0 ..< frameDiffCount).map { Int(frameDiffs[$0]) } }
    /// The chain differences as an array (tests and tools).
    public var chainDiffList: [Int] { (0 ..< chainCount).map { Int(chainDiffs[$0]) } }

    /// Parses one value against `structure` (the stream's last), or the structure the packet
    /// carries, which is read into `incoming` (its storage is reused). Does not allocate.
    /// - Parameters:
    ///   - value: the extension element's bytes.
    ///   - structure: the stream's current structure, nil before any.
    ///   - incoming: storage for a structure the packet carries.
    /// - Throws: `DependencyDescriptorError`.
    public static func parse(_ value: UnsafeRawBufferPointer, structure: DependencyStructure?,
                             incoming: inout DependencyStructure) throws(DependencyDescriptorError) -> DependencyDescriptor {
        guard value.count >= 3 else { throw .truncated }
        var r = BitReader(value)
        var d = DependencyDescriptor()
        d.startOfFrame = try r.flag()
        d.endOfFrame = try r.flag()
        d.templateID = UInt8(try r.read(6))
        d.frameNumber = UInt16(try r.read(16))
        d.layout.length = value.count
        var hasMask = false
        if value.count > 3 {
            d.layout.extended = true
            d.carriesStructure = try r.flag()
            hasMask = try r.flag()
            d.customIndications = try r.flag()
            d.customFrameDiffs = try r.flag()
            d.customChains = try r.flag()
            if d.carriesStructure { try incoming.read(&r) }
        }
        d.layout.maskOffset = r.position
        d.layout.hadMask = hasMask
        if d.carriesStructure {
            try d.define(&r, structure: incoming, hasMask: hasMask)
        } else {
            guard let structure else { throw .missingStructure }
            try d.define(&r, structure: structure, hasMask: hasMask)
        }
        return d
    }

    // MARK: - Internals

    /// The mask and frame_dependency_definition().
    private mutating func define(_ r: inout BitReader, structure s: DependencyStructure, hasMask: Bool) throws(DependencyDescriptorError) {
        decodeTargetCount = s.decodeTargetCount
        layout.decodeTargetCount = decodeTargetCount
        chainCount = s.chainCount
        if hasMask { activeDecodeTargets = try r.read(decodeTargetCount) }
        let start = r.position
        guard let t = s.templateIndex(id: templateID) else { throw .unknownTemplate(templateID) }
        spatialID = s.templateSpatialID(t)
        temporalID = s.templateTemporalID(t)
        if customIndications {
            indications = 0
            for dt in 0 ..< decodeTargetCount { indications |= UInt64(try r.read(2)) << (2 * UInt64(dt)) }
        } else {
            indications = s.templateIndications(t)
        }
        if customFrameDiffs {
            frameDiffCount = 0
            while true {
                let size = Int(try r.read(2))
                if size == 0 { break }
                guard frameDiffCount < DependencyStructure.maxFrameDiffs else { throw .tooManyFrameDiffs }
                frameDiffs[frameDiffCount] = UInt16(truncatingIfNeeded: try r.read(4 * size) + 1)
                frameDiffCount += 1
            }
        } else {
            frameDiffCount = s.templateFrameDiffCount(t)
            for j in 0 ..< frameDiffCount { frameDiffs[j] = s.templateFrameDiff(t, j) }
        }
        for chain in 0 ..< chainCount {
            chainDiffs[chain] = customChains ? UInt8(try r.read(8)) : s.templateChainDiff(t, chain)
        }
        layout.frameDefinition = start ..< r.position
    }
}

extension DependencyDescriptor: Equatable {
    /// Equal when the values are (the layout, which depends on how they were written, is not compared).
    public static func == (a: DependencyDescriptor, b: DependencyDescriptor) -> Bool {
        a.startOfFrame == b.startOfFrame && a.endOfFrame == b.endOfFrame && a.templateID == b.templateID
            && a.frameNumber == b.frameNumber && a.carriesStructure == b.carriesStructure
            && a.activeDecodeTargets == b.activeDecodeTargets && a.spatialID == b.spatialID && a.temporalID == b.temporalID
            && a.decodeTargetCount == b.decodeTargetCount && a.indications == b.indications
            && a.frameDiffList == b.frameDiffList && a.chainDiffList == b.chainDiffList
    }
}
