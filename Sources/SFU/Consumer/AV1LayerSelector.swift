import RTCWire

/// Which frames of a scalable AV1 stream one subscriber gets, from each packet's Dependency
/// Descriptor (av1-rtp-spec Appendix A): the frames of one decode target. A pure value, tested
/// without sockets; `SVCConsumer` feeds it each packet's descriptor and sends what it keeps.
///
/// Rules:
/// - The decode target wanted is, among those the publisher has active, the one of the highest
///   spatial layer up to the target, then of the highest temporal layer up to the target
///   (`DecodeTargets.best`).
/// - A frame is forwarded when the current decode target holds it (its indication is not
///   "not present", Table A.1).
/// - The current decode target changes only at the start of a frame that decodes for the new one
///   (§A.7): the new one's chain is intact there (every earlier frame of the chain was forwarded
///   to this subscriber, or the frame starts the chain anew), and the frame is a switch point for
///   it (indication "switch") or the new target's frames are all among those forwarded until now
///   (going down). A change of spatial layer waits for the first frame of a temporal unit (a new
///   RTP timestamp): the marker of the unit's last frame must be this subscriber's.
/// - The last kept packet of each temporal unit carries the RTP marker: the end of the frame of
///   the current decode target's spatial layer, or the publisher's own marker.
/// - Each verdict carries the active decode targets for this subscriber (those whose frames it
///   all receives, within the publisher's active ones), written into the descriptor it gets (§A.4).
struct AV1LayerSelector: Sendable {
    /// What to do with one packet.
    struct Verdict: Sendable, Equatable {
        var forward: Bool
        /// Set the RTP marker on it (it ends the temporal unit for this subscriber).
        var marker: Bool
        /// The decode targets this subscriber can decode (av1-rtp-spec §A.4).
        var activeDecodeTargets: UInt32

        static let drop = Verdict(forward: false, marker: false, activeDecodeTargets: 0)
    }

    /// What the selector needs of a template structure, copied once per structure (it arrives
    /// with key frames) into fixed storage, so deciding per packet touches no array.
    struct DecodeTargets: Sendable {
        var count = 0
        var spatial = InlineArray<32, UInt8>(repeating: 0)
        var temporal = InlineArray<32, UInt8>(repeating: 0)
        /// The chain protecting each, -1 without chains.
        var chain = InlineArray<32, Int8>(repeating: -1)
        /// Per decode target, the decode targets whose frames are all among its frames (judged
        /// by the templates): those its subscriber can decode too.
        var contained = InlineArray<32, UInt32>(repeating: 0)

        init() {}

        init(_ structure: DependencyStructure) {
            count = structure.decodeTargetCount
            for dt in 0 ..< count {
                spatial[dt] = UInt8(structure.spatialID(ofDecodeTarget: dt))
                temporal[dt] = UInt8(structure.temporalID(ofDecodeTarget: dt))
                chain[dt] = Int8(structure.chain(protecting: dt) ?? -1)
            }
            for target in 0 ..< count {
                var mask: UInt32 = 0
                for dt in 0 ..< count {
                    let outside = (0 ..< structure.templateCount).contains {
                        structure.templateIndication($0, decodeTarget: dt) != .notPresent
                            && structure.templateIndication($0, decodeTarget: target) == .notPresent
                    }
                    if !outside { mask |= UInt32(1) << UInt32(dt) }
                }
                contained[target] = mask
            }
        }

        /// Among `active` decode targets, the one of the highest spatial layer up to `spatial`
        /// (else the lowest above it), then of the highest temporal layer up to `temporal`.
        func best(spatial: Int, temporal: Int, active: UInt32) -> Int? {
            var best: Int?
            var bestKey = (Int.min, Int.min)
            for dt in 0 ..< count where active >> UInt32(dt) & 1 == 1 {
                let s = Int(self.spatial[dt]), t = Int(self.temporal[dt])
                // Within the target, larger is better; above it, closer is.
                let key = (s <= spatial ? s : -s - 1000, t <= temporal ? t : -t - 1000)
                if best == nil || key > bestKey {
                    best = dt
                    bestKey = key
                }
            }
            return best
        }
    }

    /// The layers wanted; `targetSpatial` nil sends nothing (paused).
    var targetSpatial: Int?
    var targetTemporal: Int = 7
    /// The decode target being forwarded, nil until a frame that starts one.
    private(set) var currentTarget: Int?
    /// Its spatial layer.
    private(set) var currentSpatial: Int?
    /// The decode target wanted that was not reachable at the last frame start.
    private(set) var pendingTarget: Int?
    /// The current structure's decode targets (`learn`).
    private(set) var targets = DecodeTargets()
    private var pictureTimestamp: UInt32 = 0
    private var inPicture = false
    /// Frames forwarded recently, for chains: slot `n % 256` holds frame number n when it was.
    private var forwarded = InlineArray<256, Int32>(repeating: -1)

    init(targetSpatial: Int?, targetTemporal: Int = 7) {
        self.targetSpatial = targetSpatial
        self.targetTemporal = targetTemporal
    }

    /// Whether the selector waits for a frame where it can start or change its decode target
    /// (with `L3T3_KEY`, a key frame): the consumer asks the publisher for one.
    var needsKeyFrame: Bool {
        guard targetSpatial != nil else { return false }
        guard let pending = pendingTarget else { return currentTarget == nil }
        // A change of temporal layer alone waits for a switch indication (a TL0 frame), which
        // comes within the temporal pattern without a key frame.
        return currentTarget == nil || Int(targets.spatial[pending]) != currentSpatial
    }

    /// Whether the decode target the targets call for is of a higher spatial layer than the one
    /// forwarded, or none is forwarded: reaching it takes a key frame with `L3T3_KEY` (known
    /// before the next frame says whether it can switch there).
    func wantsHigherLayer(active: UInt32) -> Bool {
        guard let spatial = targetSpatial else { return false }
        guard let current = currentSpatial else { return true }
        guard let want = targets.best(spatial: spatial, temporal: targetTemporal, active: active) else { return false }
        return Int(targets.spatial[want]) > current
    }

    /// Whether a subscriber of spatial layer `layer` also gets spatial layer `lower`'s frames
    /// (beyond key pictures): the decode target chosen for `layer` contains the one for `lower`.
    /// False with `L3T3_KEY`, true with `L3T3`; true before any structure (the safe estimate).
    func spatialLayer(_ layer: Int, includes lower: Int, active: UInt32) -> Bool {
        // Judged at the top temporal layer: the spatial layers' relation does not depend on it.
        guard targets.count > 0, let upper = targets.best(spatial: layer, temporal: 7, active: active),
              let below = targets.best(spatial: lower, temporal: 7, active: active) else { return true }
        return targets.contained[upper] >> UInt32(below) & 1 == 1
    }

    /// Takes a new template structure (the packet carrying it is selected next): its decode
    /// targets may be numbered anew, so the stream starts again at its key frame, where every
    /// chain starts anew too.
    mutating func learn(_ structure: DependencyStructure) {
        targets = DecodeTargets(structure)
        restart()
    }

    /// Forget the current decode target: the next key frame starts the stream again (resume).
    mutating func restart() {
        currentTarget = nil
        currentSpatial = nil
        pendingTarget = nil
        inPicture = false
        forwarded = InlineArray(repeating: -1)
    }

    /// Decides for one packet.
    /// - Parameters:
    ///   - d: its Dependency Descriptor (read with the structure last given to `learn`).
    ///   - active: the decode targets the publisher has active.
    ///   - timestamp: its RTP timestamp (one per temporal unit).
    ///   - marker: its RTP marker (the publisher's end of the temporal unit).
    mutating func select(_ d: DependencyDescriptor, active: UInt32, timestamp: UInt32, marker: Bool) -> Verdict {
        guard d.decodeTargetCount == targets.count else { return .drop }   // not read with the learnt structure
        let newPicture = !inPicture || timestamp != pictureTimestamp
        if newPicture {
            inPicture = true
            pictureTimestamp = timestamp
        }
        if let spatial = targetSpatial {
            if d.startOfFrame { choose(d, active: active, spatial: spatial, newPicture: newPicture) }
        } else if newPicture {
            currentTarget = nil   // paused: from the next temporal unit
            currentSpatial = nil
            pendingTarget = nil
        }
        guard let current = currentTarget, d.indication(for: current) != .notPresent else { return .drop }
        forwarded[Int(d.frameNumber) & 255] = Int32(d.frameNumber)
        return Verdict(forward: true, marker: marker || (d.endOfFrame && Int(d.spatialID) == currentSpatial),
                       activeDecodeTargets: targets.contained[current] & active)
    }

    // MARK: - Internals

    private mutating func choose(_ d: DependencyDescriptor, active: UInt32, spatial: Int, newPicture: Bool) {
        guard let want = targets.best(spatial: spatial, temporal: targetTemporal, active: active) else { return }
        guard want != currentTarget else {
            pendingTarget = nil
            return
        }
        let wantSpatial = Int(targets.spatial[want])
        // A change of spatial layer waits for the first frame of a temporal unit.
        guard newPicture || wantSpatial == currentSpatial else { return }
        let indication = d.indication(for: want)
        let chain = Int(targets.chain[want])
        let chainIntact = chain < 0 || isIntact(chain: chain, at: d)
        let decodes: Bool
        if let current = currentTarget {
            // Up (or across) at a switch point; down wherever the new target's frames go on.
            let goingDown = targets.contained[current] >> UInt32(want) & 1 == 1
            decodes = chainIntact && (indication == .switch || (goingDown && indication != .notPresent))
        } else {
            // A start needs a frame that refers to none before it (a key frame).
            decodes = chainIntact && indication == .switch && d.frameDiffCount == 0
        }
        if decodes {
            currentTarget = want
            currentSpatial = wantSpatial
            pendingTarget = nil
        } else {
            pendingTarget = want
        }
    }

    /// A chain is intact at frame `d` when the frame starts it anew (difference 0) or the chain's
    /// previous frame was forwarded (§A.5).
    private func isIntact(chain: Int, at d: DependencyDescriptor) -> Bool {
        guard chain < d.chainCount else { return false }
        let diff = d.chainDiffs[chain]
        if diff == 0 { return true }
        let previous = d.frameNumber &- UInt16(diff)
        return forwarded[Int(previous) & 255] == Int32(previous)
    }
}
