// The scalability modes a sender here writes Dependency Descriptors for, named as browsers name
// them (W3C webrtc-svc `scalabilityMode`), each with its template structure (av1-rtp-spec
// §A.8.2) and the template of every frame of its pattern. Temporal layers repeat the four-frame
// pattern T0 T2 T1 T2 (position 0…3 of `temporalPattern`): a T1 frame refers to the T0 frame
// before it, a T2 frame to the T0 or T1 frame just before it. With two spatial layers in `_KEY`
// form (L2T3_KEY) each temporal unit holds an S0 frame (half the size) and then an S1 frame; S1
// refers to S0 only in the key picture, then to S1 frames alone. Frame numbers rise by one per
// frame (§A.8.3), so a difference counts the frames of every layer in between.
//
// Decode targets are numbered spatial-major (S0T0, S0T1, S0T2, S1T0, …); one chain per spatial
// layer runs through its T0 frames (and, with `_KEY`, the key picture's S0 frame).

/// A scalability mode: spatial and temporal layers and their dependencies.
public enum ScalabilityMode: String, Sendable, CaseIterable {
    /// One layer: a key frame refers to nothing, a delta frame to the frame before.
    case l1t1 = "L1T1"
    /// One spatial layer, three temporal layers (7.5, 15 and 30 fps of a 30 fps stream).
    case l1t3 = "L1T3"
    /// Two spatial layers (S0 half the width and height), three temporal layers, spatial
    /// prediction only in key pictures.
    case l2t3Key = "L2T3_KEY"

    /// DtCnt of the mode's structure: one decode target per spatial and temporal layer.
    public var decodeTargetCount: Int { spatialLayers * temporalLayers }

    /// The decode targets of spatial layers `0 ..< spatialLayers` (bit i: decode target i; they
    /// are numbered spatial-major): the active_decode_targets_bitmask (av1-rtp-spec §A.4) of a
    /// sender whose upper spatial layers are off.
    public func decodeTargets(spatialLayers count: Int) -> UInt32 {
        let layers = min(max(count, 0), spatialLayers)
        return UInt32((1 << (layers * temporalLayers)) - 1)
    }

    /// The temporal id at each position of the four-frame pattern.
    public static let temporalPattern = [0, 2, 1, 2]

    public var spatialLayers: Int { self == .l2t3Key ? 2 : 1 }
    public var temporalLayers: Int { self == .l1t1 ? 1 : 3 }

    /// The temporal id of the frames at pattern position `position` (0…3).
    public func temporalID(position: Int) -> Int {
        temporalLayers == 1 ? 0 : Self.temporalPattern[position & 3]
    }

    /// The template of frame `spatialID` at pattern `position`; `keyPicture` for the temporal unit
    /// that starts with a key frame (position 0).
    public func templateID(spatialID: Int, position: Int, keyPicture: Bool) -> UInt8 {
        switch self {
        case .l1t1:
            return keyPicture ? 0 : 1
        case .l1t3, .l2t3Key:
            // Per spatial layer: key (or S1's first), T0, T1, T2 after T0, T2 after T1.
            let perPosition: UInt8 = keyPicture ? 0 : [1, 3, 2, 4][position & 3]
            return UInt8(spatialID) * 5 + perPosition
        }
    }

    /// The template dependency structure (no resolutions: receivers read sizes from the bitstream).
    public var structure: DependencyStructure {
        switch self {
        case .l1t1: Self.l1t1Structure
        case .l1t3: Self.l1t3Structure
        case .l2t3Key: Self.l2t3KeyStructure
        }
    }

    // MARK: - Structures

    private static let l1t1Structure = DependencyStructure(
        templateIDOffset: 0, decodeTargetCount: 1, chainCount: 1, protectedBy: [0],
        templates: [
            DependencyTemplate(spatialID: 0, temporalID: 0, indications: [.switch], chainDiffs: [0]),
            DependencyTemplate(spatialID: 0, temporalID: 0, indications: [.switch], frameDiffs: [1], chainDiffs: [1]),
        ])

    // Decode targets T0, T0+T1, all. Frames 0…3 of the pattern; the chain runs through T0 frames.
    private static let l1t3Structure: DependencyStructure = {
        let (s, d, n) = (DecodeTargetIndication.switch, DecodeTargetIndication.discardable, DecodeTargetIndication.notPresent)
        return DependencyStructure(
            templateIDOffset: 0, decodeTargetCount: 3, chainCount: 1, protectedBy: [0, 0, 0],
            templates: [
                DependencyTemplate(spatialID: 0, temporalID: 0, indications: [s, s, s], chainDiffs: [0]),                  // key
                DependencyTemplate(spatialID: 0, temporalID: 0, indications: [s, s, s], frameDiffs: [4], chainDiffs: [4]), // T0
                DependencyTemplate(spatialID: 0, temporalID: 1, indications: [n, d, s], frameDiffs: [2], chainDiffs: [2]), // T1
                DependencyTemplate(spatialID: 0, temporalID: 2, indications: [n, n, d], frameDiffs: [1], chainDiffs: [1]), // T2 after T0
                DependencyTemplate(spatialID: 0, temporalID: 2, indications: [n, n, d], frameDiffs: [1], chainDiffs: [3]), // T2 after T1
            ])
    }()

    // Decode targets S0T0, S0T1, S0T2, S1T0, S1T1, S1T2; chain 0 through S0's T0 frames, chain 1
    // through S1's (and the key S0 frame). Two frames per temporal unit: S0 even, S1 odd.
    private static let l2t3KeyStructure: DependencyStructure = {
        let (s, d, n) = (DecodeTargetIndication.switch, DecodeTargetIndication.discardable, DecodeTargetIndication.notPresent)
        return DependencyStructure(
            templateIDOffset: 0, decodeTargetCount: 6, chainCount: 2, protectedBy: [0, 0, 0, 1, 1, 1],
            templates: [
                DependencyTemplate(spatialID: 0, temporalID: 0, indications: [s, s, s, s, s, s], chainDiffs: [0, 0]),                  // key
                DependencyTemplate(spatialID: 0, temporalID: 0, indications: [s, s, s, n, n, n], frameDiffs: [8], chainDiffs: [8, 7]), // T0
                DependencyTemplate(spatialID: 0, temporalID: 1, indications: [n, d, s, n, n, n], frameDiffs: [4], chainDiffs: [4, 3]), // T1
                DependencyTemplate(spatialID: 0, temporalID: 2, indications: [n, n, d, n, n, n], frameDiffs: [2], chainDiffs: [2, 1]), // T2 after T0
                DependencyTemplate(spatialID: 0, temporalID: 2, indications: [n, n, d, n, n, n], frameDiffs: [2], chainDiffs: [6, 5]), // T2 after T1
                DependencyTemplate(spatialID: 1, temporalID: 0, indications: [n, n, n, s, s, s], frameDiffs: [1], chainDiffs: [1, 1]), // key picture's S1
                DependencyTemplate(spatialID: 1, temporalID: 0, indications: [n, n, n, s, s, s], frameDiffs: [8], chainDiffs: [1, 8]), // T0
                DependencyTemplate(spatialID: 1, temporalID: 1, indications: [n, n, n, n, d, s], frameDiffs: [4], chainDiffs: [5, 4]), // T1
                DependencyTemplate(spatialID: 1, temporalID: 2, indications: [n, n, n, n, n, d], frameDiffs: [2], chainDiffs: [3, 2]), // T2 after T0
                DependencyTemplate(spatialID: 1, temporalID: 2, indications: [n, n, n, n, n, d], frameDiffs: [2], chainDiffs: [7, 6]), // T2 after T1
            ])
    }()
}
