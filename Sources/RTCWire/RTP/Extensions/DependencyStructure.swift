// The template dependency structure of the AV1 Dependency Descriptor (av1-rtp-spec §A.8.2,
// template_dependency_structure()): the decode targets, the frame dependency templates later
// packets refer to by id, the chains protecting the decode targets and the spatial layers'
// resolutions. It arrives only with the first packet of a coded video sequence (a key frame);
// `DependencyDescriptorReader` keeps the last one per stream.
//
// Storage is sized for the largest structure once, at init, and overwritten in place by `read`:
// reading a structure does not allocate.

// MARK: - Types

/// What a frame is to a decode target (av1-rtp-spec Table A.1).
public enum DecodeTargetIndication: UInt8, Sendable, CaseIterable {
    /// The frame is not part of the decode target.
    case notPresent = 0
    /// Part of it, and no later frame of it refers to this one.
    case discardable = 1
    /// Part of it, and a switch point: if this frame decodes, every later frame of it does (§A.7).
    case `switch` = 2
    /// Part of it, neither discardable nor a switch point.
    case required = 3
}

/// One frame dependency template, as tests and tools build structures (the reader keeps them in
/// flat storage).
public struct DependencyTemplate: Sendable, Equatable {
    public var spatialID: Int
    public var temporalID: Int
    /// One indication per decode target.
    public var indications: [DecodeTargetIndication]
    /// Differences to the frame numbers of the frames this one refers to (1…16).
    public var frameDiffs: [Int]
    /// One difference per chain to the previous frame in that chain (0…15; 0: none needed).
    public var chainDiffs: [Int]

    public init(spatialID: Int, temporalID: Int, indications: [DecodeTargetIndication], frameDiffs: [Int] = [], chainDiffs: [Int] = []) {
        self.spatialID = spatialID
        self.temporalID = temporalID
        self.indications = indications
        self.frameDiffs = frameDiffs
        self.chainDiffs = chainDiffs
    }
}

/// A template dependency structure (av1-rtp-spec §A.8.2).
public struct DependencyStructure: Sendable {
    public static let maxDecodeTargets = 32
    public static let maxTemplates = 64
    public static let maxSpatialLayers = 4
    public static let maxTemporalLayers = 8
    /// Referred frames kept per template or frame (the spec sets no bound; AV1 refers to at most 7).
    public static let maxFrameDiffs = 8

    /// The template id of template 0 (template_id_offset).
    public private(set) var templateIDOffset: UInt8 = 0
    /// DtCnt.
    public private(set) var decodeTargetCount = 0
    /// TemplateCnt.
    public private(set) var templateCount = 0
    /// chain_cnt (0: the structure uses no chains).
    public private(set) var chainCount = 0
    /// MaxSpatialId + 1.
    public private(set) var spatialLayerCount = 0
    /// MaxTemporalId + 1.
    public private(set) var temporalLayerCount = 0
    /// resolutions_present_flag.
    public private(set) var hasResolutions = false

    private var templateSpatial: [UInt8]
    private var templateTemporal: [UInt8]
    /// 2 bits per decode target, decode target 0 in the low bits.
    private var templateIndications: [UInt64]
    private var templateFrameDiffCount: [UInt8]
    private var templateFrameDiffs: [UInt8]
    private var templateChainDiffs: [UInt8]
    private var protectedBy: [UInt8]
    private var targetSpatial: [UInt8]
    private var targetTemporal: [UInt8]
    /// max_render_width_minus_1 + 1: up to 65 536, one more than 16 bits hold.
    private var widths: [UInt32]
    private var heights: [UInt32]

    // MARK: - Public API

    /// An empty structure with storage for the largest one.
    public init() {
        templateSpatial = [UInt8](repeating: 0, count: Self.maxTemplates)
        templateTemporal = [UInt8](repeating: 0, count: Self.maxTemplates)
        templateIndications = [UInt64](repeating: 0, count: Self.maxTemplates)
        templateFrameDiffCount = [UInt8](repeating: 0, count: Self.maxTemplates)
        templateFrameDiffs = [UInt8](repeating: 0, count: Self.maxTemplates * Self.maxFrameDiffs)
        templateChainDiffs = [UInt8](repeating: 0, count: Self.maxTemplates * Self.maxDecodeTargets)
        protectedBy = [UInt8](repeating: 0, count: Self.maxDecodeTargets)
        targetSpatial = [UInt8](repeating: 0, count: Self.maxDecodeTargets)
        targetTemporal = [UInt8](repeating: 0, count: Self.maxDecodeTargets)
        widths = [UInt32](repeating: 0, count: Self.maxSpatialLayers)
        heights = [UInt32](repeating: 0, count: Self.maxSpatialLayers)
    }

    /// A structure from values (tests, tools). Templates must be listed in the order the wire
    /// requires: by spatial id, then temporal id, each step up at most one (§A.8.2 template_layers).
    /// - Parameters:
    ///   - protectedBy: the chain protecting each decode target (empty when `chainCount` is 0).
    ///   - resolutions: width and height per spatial layer, or empty.
    public init(templateIDOffset: UInt8, decodeTargetCount: Int, chainCount: Int = 0, protectedBy: [Int] = [],
                templates: [DependencyTemplate], resolutions: [(width: Int, height: Int)] = []) {
        self.init()
        self.templateIDOffset = templateIDOffset & 0x3F
        self.decodeTargetCount = decodeTargetCount
        self.chainCount = chainCount
        templateCount = templates.count
        for (i, t) in templates.enumerated() {
            templateSpatial[i] = UInt8(t.spatialID)
            templateTemporal[i] = UInt8(t.temporalID)
            var packed: UInt64 = 0
            for (dt, indication) in t.indications.enumerated() { packed |= UInt64(indication.rawValue) << (2 * UInt64(dt)) }
            templateIndications[i] = packed
            templateFrameDiffCount[i] = UInt8(t.frameDiffs.count)
            for (j, diff) in t.frameDiffs.enumerated() { templateFrameDiffs[i * Self.maxFrameDiffs + j] = UInt8(diff) }
            for (j, diff) in t.chainDiffs.enumerated() { templateChainDiffs[i * Self.maxDecodeTargets + j] = UInt8(diff) }
        }
        for (dt, chain) in protectedBy.enumerated() { self.protectedBy[dt] = UInt8(chain) }
        hasResolutions = !resolutions.isEmpty
        for (i, r) in resolutions.enumerated() {
            widths[i] = UInt32(r.width)
            heights[i] = UInt32(r.height)
        }
        deriveLayers()
    }

    /// The templates as values (tests, tools).
    public var templates: [DependencyTemplate] {
        (0 ..< templateCount).map { i in
            DependencyTemplate(spatialID: Int(templateSpatial[i]), temporalID: Int(templateTemporal[i]),
                               indications: (0 ..< decodeTargetCount).map { templateIndication(i, decodeTarget: $0) },
                               frameDiffs: (0 ..< Int(templateFrameDiffCount[i])).map { Int(templateFrameDiffs[i * Self.maxFrameDiffs + $0]) },
                               chainDiffs: (0 ..< chainCount).map { Int(templateChainDiffs[i * Self.maxDecodeTargets + $0]) })
        }
    }

    /// The highest spatial id of a frame in `decodeTarget` (DecodeTargetSpatialId, §A.8.2).
    @inline(__always)
    public func spatialID(ofDecodeTarget decodeTarget: Int) -> Int { Int(targetSpatial[decodeTarget]) }

    /// The highest temporal id of a frame in `decodeTarget` (DecodeTargetTemporalId).
    @inline(__always)
    public func temporalID(ofDecodeTarget decodeTarget: Int) -> Int { Int(targetTemporal[decodeTarget]) }

    /// The chain protecting `decodeTarget`, nil when the structure has no chains.
    @inline(__always)
    public func chain(protecting decodeTarget: Int) -> Int? {
        chainCount == 0 ? nil : Int(protectedBy[decodeTarget])
    }

    /// Render width and height of `spatialID`'s frames, when the structure says.
    public func resolution(spatialID: Int) -> (width: Int, height: Int)? {
        guard hasResolutions, spatialID < spatialLayerCount else { return nil }
        return (Int(widths[spatialID]), Int(heights[spatialID]))
    }

    /// Every decode target, as a mask (bit i: decode target i).
    public var allDecodeTargets: UInt32 {
        decodeTargetCount >= 32 ? .max : (UInt32(1) << UInt32(decodeTargetCount)) - 1
    }

    // MARK: - Templates (the packet path)

    /// The template index of a frame's template id, nil when outside this structure (§A.8.2
    /// frame_dependency_definition).
    @inline(__always)
    func templateIndex(id: UInt8) -> Int? {
        let index = (Int(id) + 64 - Int(templateIDOffset)) % 64
        return index < templateCount ? index : nil
    }

    @inline(__always) func templateSpatialID(_ i: Int) -> UInt8 { templateSpatial[i] }
    @inline(__always) func templateTemporalID(_ i: Int) -> UInt8 { templateTemporal[i] }
    @inline(__always) func templateIndications(_ i: Int) -> UInt64 { templateIndications[i] }
    @inline(__always) func templateFrameDiffCount(_ i: Int) -> Int { Int(templateFrameDiffCount[i]) }
    @inline(__always) func templateFrameDiff(_ i: Int, _ j: Int) -> UInt16 { UInt16(templateFrameDiffs[i * Self.maxFrameDiffs + j]) }
    @inline(__always) func templateChainDiff(_ i: Int, _ chain: Int) -> UInt8 { templateChainDiffs[i * Self.maxDecodeTargets + chain] }

    /// Template `i`'s indication for `decodeTarget`.
    public func templateIndication(_ i: Int, decodeTarget: Int) -> DecodeTargetIndication {
        DecodeTargetIndication(rawValue: UInt8(truncatingIfNeeded: templateIndications[i] >> (2 * UInt64(decodeTarget))) & 3)!
    }

    // MARK: - Reading and writing (§A.8.2)

    /// template_dependency_structure(), read over the current contents.
    mutating func read(_ r: inout BitReader) throws(DependencyDescriptorError) {
        templateIDOffset = UInt8(try r.read(6))
        decodeTargetCount = Int(try r.read(5)) + 1
        // template_layers()
        var spatial: UInt8 = 0, temporal: UInt8 = 0
        templateCount = 0
        while true {
            guard templateCount < Self.maxTemplates else { throw .tooManyTemplates }
            guard spatial < Self.maxSpatialLayers, temporal < Self.maxTemporalLayers else { throw .layerOutOfRange }
            templateSpatial[templateCount] = spatial
            templateTemporal[templateCount] = temporal
            templateCount += 1
            let next = try r.read(2)
            if next == 3 { break }
            if next == 1 { temporal += 1 } else if next == 2 { temporal = 0; spatial += 1 }
        }
        // template_dtis()
        for i in 0 ..< templateCount {
            var packed: UInt64 = 0
            for dt in 0 ..< decodeTargetCount { packed |= UInt64(try r.read(2)) << (2 * UInt64(dt)) }
            templateIndications[i] = packed
        }
        // template_fdiffs()
        for i in 0 ..< templateCount {
            var count = 0
            while try r.flag() {
                guard count < Self.maxFrameDiffs else { throw .tooManyFrameDiffs }
                templateFrameDiffs[i * Self.maxFrameDiffs + count] = UInt8(try r.read(4) + 1)
                count += 1
            }
            templateFrameDiffCount[i] = UInt8(count)
        }
        // template_chains()
        chainCount = Int(try r.readNonSymmetric(UInt32(decodeTargetCount + 1)))
        if chainCount > 0 {
            for dt in 0 ..< decodeTargetCount { protectedBy[dt] = UInt8(try r.readNonSymmetric(UInt32(chainCount))) }
            for i in 0 ..< templateCount {
                for chain in 0 ..< chainCount { templateChainDiffs[i * Self.maxDecodeTargets + chain] = UInt8(try r.read(4)) }
            }
        }
        deriveLayers()
        hasResolutions = try r.flag()
        if hasResolutions {
            for s in 0 ..< spatialLayerCount {
                widths[s] = try r.read(16) + 1
                heights[s] = try r.read(16) + 1
            }
        }
    }

    /// template_dependency_structure() written at `w`'s position.
    func write(_ w: inout BitWriter) {
        w.write(UInt32(templateIDOffset), bits: 6)
        w.write(UInt32(decodeTargetCount - 1), bits: 5)
        for i in 0 ..< templateCount {
            let next: UInt32
            if i == templateCount - 1 {
                next = 3
            } else if templateSpatial[i + 1] > templateSpatial[i] {
                next = 2
            } else if templateTemporal[i + 1] > templateTemporal[i] {
                next = 1
            } else {
                next = 0
            }
            w.write(next, bits: 2)
        }
        for i in 0 ..< templateCount {
            for dt in 0 ..< decodeTargetCount { w.write(UInt32(templateIndication(i, decodeTarget: dt).rawValue), bits: 2) }
        }
        for i in 0 ..< templateCount {
            for j in 0 ..< Int(templateFrameDiffCount[i]) {
                w.write(true)
                w.write(UInt32(templateFrameDiffs[i * Self.maxFrameDiffs + j]) - 1, bits: 4)
            }
            w.write(false)
        }
        w.writeNonSymmetric(UInt32(chainCount), UInt32(decodeTargetCount + 1))
        if chainCount > 0 {
            for dt in 0 ..< decodeTargetCount { w.writeNonSymmetric(UInt32(protectedBy[dt]), UInt32(chainCount)) }
            for i in 0 ..< templateCount {
                for chain in 0 ..< chainCount { w.write(UInt32(templateChainDiffs[i * Self.maxDecodeTargets + chain]), bits: 4) }
            }
        }
        w.write(hasResolutions)
        if hasResolutions {
            for s in 0 ..< spatialLayerCount {
                w.write(widths[s] - 1, bits: 16)
                w.write(heights[s] - 1, bits: 16)
            }
        }
    }

    /// decode_target_layers() and the layer counts.
    private mutating func deriveLayers() {
        var maxSpatial: UInt8 = 0, maxTemporal: UInt8 = 0
        for i in 0 ..< templateCount {
            maxSpatial = max(maxSpatial, templateSpatial[i])
            maxTemporal = max(maxTemporal, templateTemporal[i])
        }
        spatialLayerCount = templateCount == 0 ? 0 : Int(maxSpatial) + 1
        temporalLayerCount = templateCount == 0 ? 0 : Int(maxTemporal) + 1
        for dt in 0 ..< decodeTargetCount {
            var spatial: UInt8 = 0, temporal: UInt8 = 0
            for i in 0 ..< templateCount where templateIndication(i, decodeTarget: dt) != .notPresent {
                spatial = max(spatial, templateSpatial[i])
                temporal = max(temporal, templateTemporal[i])
            }
            targetSpatial[dt] = spatial
            targetTemporal[dt] = temporal
        }
    }
}

extension DependencyStructure: Equatable {
    /// Equal when every field the wire carries is (storage beyond the counts is ignored).
    public static func == (a: DependencyStructure, b: DependencyStructure) -> Bool {
        a.templateIDOffset == b.templateIDOffset && a.decodeTargetCount == b.decodeTargetCount && a.chainCount == b.chainCount
            && a.templates == b.templates && a.hasResolutions == b.hasResolutions
            && (0 ..< a.decodeTargetCount).allSatisfy { a.chain(protecting: $0) == b.chain(protecting: $0) }
            && (!a.hasResolutions || (0 ..< a.spatialLayerCount).allSatisfy { a.widths[$0] == b.widths[$0] && a.heights[$0] == b.heights[$0] })
    }
}
