import RTCMedia

/// Which packets of a scalable VP9 stream (RFC 9628) one subscriber gets: every layer frame up to
/// a spatial and a temporal layer. A pure value, tested without sockets; `SVCConsumer` feeds it
/// each packet's descriptor and sends what it keeps.
///
/// Rules (RFC 9628 §4.2 for the bits):
/// - A packet is kept when its SID ≤ the current spatial layer and its TID ≤ the current temporal
///   layer. A stream without layer indices is layer 0 throughout.
/// - The spatial layer goes **up** one layer at a time, at the first packet (B) of a layer frame of
///   the next layer that needs no earlier picture (P = 0): its inter-layer reference, the layer
///   below in the same picture, has just been forwarded. With `L3T3_KEY` that is a key picture; a
///   start (no layer yet) waits for a key picture's base layer.
/// - The temporal layer goes up at a switching-up point (U) of a higher layer, at a TL0 picture
///   (the allocation raises it there: TL1 and TL2 frames after it refer only to it and to each
///   other in L?T3), or at a key picture.
/// - Both go **down** at a picture boundary (a new RTP timestamp): the picture being sent is finished.
/// - The last kept packet of each picture carries the RTP marker: the end (E) of the highest
///   spatial layer kept (in a key picture that raises the layer, the new one), or the publisher's
///   own marker.
struct VP9LayerSelector: Sendable, Equatable {
    /// What to do with one packet.
    struct Verdict: Sendable, Equatable {
        var forward: Bool
        /// Set the RTP marker on it (it ends the picture for this subscriber).
        var marker: Bool

        static let drop = Verdict(forward: false, marker: false)
    }

    /// The layers wanted; `spatial` nil sends nothing (paused).
    var targetSpatial: Int?
    var targetTemporal: Int = 7
    /// The layers being forwarded; spatial nil until a key picture starts the stream.
    private(set) var currentSpatial: Int?
    private(set) var currentTemporal: Int = 0
    private var pictureTimestamp: UInt32 = 0
    private var inPicture = false
    /// The picture being sent is a key picture: its upper layers may follow and raise the layer.
    private var keyPicture = false

    init(targetSpatial: Int?, targetTemporal: Int = 7) {
        self.targetSpatial = targetSpatial
        self.targetTemporal = targetTemporal
    }

    /// Whether the selector waits for a point where it can raise its spatial layer (a key picture
    /// with `L3T3_KEY`): the consumer asks the publisher for one.
    var needsKeyFrame: Bool {
        guard let target = targetSpatial else { return false }
        return currentSpatial.map { $0 < target } ?? true
    }

    /// Forget the current layers: the next key picture starts the stream again (resume, restart).
    mutating func restart() {
        currentSpatial = nil
        inPicture = false
    }

    /// Decides for one packet.
    /// - Parameters:
    ///   - descriptor: the packet's payload descriptor.
    ///   - timestamp: its RTP timestamp (one per picture).
    ///   - marker: its RTP marker (the publisher's end of picture).
    mutating func select(_ descriptor: VP9PayloadDescriptor, timestamp: UInt32, marker: Bool) -> Verdict {
        if !inPicture || timestamp != pictureTimestamp {
            inPicture = true
            pictureTimestamp = timestamp
            keyPicture = false
            // A picture boundary: lower layers take effect now, the previous picture is complete.
            if let current = currentSpatial {
                if let target = targetSpatial {
                    if target < current { currentSpatial = target }
                } else {
                    currentSpatial = nil
                }
            }
            if targetTemporal < currentTemporal { currentTemporal = targetTemporal }
        }
        let spatial = Int(descriptor.spatialLayer), temporal = Int(descriptor.temporalLayer)
        if let target = targetSpatial, descriptor.beginningOfFrame {
            if descriptor.isKeyFrameStart {
                keyPicture = true
                if currentSpatial == nil { currentSpatial = 0 }
                currentTemporal = targetTemporal
            } else if let current = currentSpatial, spatial == current + 1, spatial <= target, !descriptor.interPicturePredicted {
                currentSpatial = spatial
            }
            if let current = currentSpatial, spatial <= current, temporal > currentTemporal, temporal <= targetTemporal,
               descriptor.switchingUpPoint {
                currentTemporal = temporal
            } else if temporal == 0, spatial == 0, currentTemporal < targetTemporal, !keyPicture {
                // A TL0 picture: the frames of every higher temporal layer after it refer to it or
                // to each other, not to the frames before it that were dropped.
                currentTemporal = targetTemporal
            }
        }
        guard let current = currentSpatial, spatial <= current, temporal <= currentTemporal else { return .drop }
        // In a key picture below the target, the next layer frame raises the layer: it ends the picture.
        let raising = keyPicture && current < (targetSpatial ?? 0)
        return Verdict(forward: true, marker: marker || (descriptor.endOfFrame && spatial == current && !raising))
    }
}
