// Where each spatial layer's frame begins in a temporal unit of several (an SVC stream's unit as the
// RTP depacketizer joins it, every layer frame the SFU forwarded). End-to-end encryption needs it:
// browsers' encoded transforms encrypt each layer frame apart (docs/e2ee.md, "AV1 with spatial
// layers"), so a receiver decrypts them one by one. The OBU headers stay in the clear under E2EE,
// so the spatial id of each OBU's extension (AV1 §5.3.3) tells the layer frames apart without the
// Dependency Descriptor. An encoder leaves the extension out where it would be all zero (libaom
// does for S0 T0 frames), so a frame OBU without one is spatial layer 0.

extension AV1OBU {
    /// The offsets (after 0) where a new spatial layer's frame begins in `unit` (low-overhead
    /// format, every OBU with obu_size): at a frame, frame header or tile group OBU whose spatial
    /// id (its extension's, or 0 without one) differs from the one before, or at the OBUs that are
    /// not layer-specific (a sequence header, a temporal delimiter, metadata without extension) just
    /// before that one, which open its layer frame. Empty for a unit of one layer frame, or one that
    /// does not parse (decrypted whole, it then fails).
    public static func spatialLayerFrameStarts(inTemporalUnit unit: UnsafeRawBufferPointer) -> [Int] {
        guard let base = unit.baseAddress else { return [] }
        var starts: [Int] = []
        var current: UInt8?
        var openedAt: Int?
        do {
            try forEach(inTemporalUnit: unit) { header, _ in
                let start = base.distance(to: header.baseAddress!)
                let spatial: UInt8
                if header.count > 1 {
                    spatial = header[1] >> 3 & 0x03
                } else if isFramePart(type(header[0])) {
                    spatial = 0
                } else {
                    if openedAt == nil { openedAt = start }
                    return
                }
                if let current, current != spatial { starts.append(openedAt ?? start) }
                current = spatial
                openedAt = nil
            }
        } catch {
            return []
        }
        return starts
    }

    /// OBU types that belong to one frame (AV1 §6.2.2): frame header, tile group, frame,
    /// redundant frame header, tile list.
    private static func isFramePart(_ type: UInt8) -> Bool {
        (3 ... 4).contains(type) || (6 ... 8).contains(type)
    }
}
