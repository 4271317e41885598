/// Keeps VP8 PictureID and TL0PICIDX (RFC 7741 §4.2) continuous for a subscriber when a simulcast
/// consumer switches between streams that each count on their own: a decoder that sees the
/// PictureID jump backwards may take the new key frame for an old frame and drop it.
///
/// The fields are rewritten in place in the send slot by subtracting a delta fixed at each switch,
/// so every packet of a stream keeps its spacing (gaps still show loss).
struct VP8PictureIDRewriter: Sendable {
    /// Offsets of the rewritable fields in one payload.
    struct Fields: Equatable {
        var pictureIDOffset: Int?
        var longPictureID = false
        var tl0Offset: Int?
    }

    /// Deltas in force: `out = in − delta` (15 or 7 bits for the PictureID, 8 for TL0PICIDX).
    private(set) var pictureIDDelta: UInt16 = 0
    private(set) var tl0Delta: UInt8 = 0
    private var lastPictureID: UInt16?
    private var lastTL0: UInt8?
    private var resyncPending = false

    /// The next packet starts a new stream: continue after the last values sent.
    mutating func resync() { resyncPending = true }

    /// Rewrites `payload` (a VP8 payload in a send slot) and returns the deltas used, so a
    /// retransmission can apply the same ones.
    mutating func rewrite(_ payload: UnsafeMutableRawBufferPointer) -> (UInt16, UInt8) {
        let fields = Self.locate(UnsafeRawBufferPointer(payload))
        if resyncPending {
            resyncPending = false
            if let offset = fields.pictureIDOffset, let last = lastPictureID {
                let value = Self.readPictureID(payload, offset, long: fields.longPictureID)
                pictureIDDelta = (value &- (last &+ 1)) & (fields.longPictureID ? 0x7FFF : 0x7F)
            }
            if let offset = fields.tl0Offset, let last = lastTL0 {
                tl0Delta = payload[offset] &- (last &+ 1)
            }
        }
        Self.apply(payload, fields: fields, pictureIDDelta: pictureIDDelta, tl0Delta: tl0Delta)
        if let offset = fields.pictureIDOffset {
            let out = Self.readPictureID(payload, offset, long: fields.longPictureID)
            if lastPictureID.map({ Self.isNewer15(out, than: $0) }) ?? true { lastPictureID = out }
        }
        if let offset = fields.tl0Offset {
            let out = payload[offset]
            if lastTL0.map({ Int8(bitPattern: out &- $0) > 0 }) ?? true { lastTL0 = out }
        }
        return (pictureIDDelta, tl0Delta)
    }

    /// Applies fixed deltas (used for retransmissions).
    static func apply(_ payload: UnsafeMutableRawBufferPointer, pictureIDDelta: UInt16, tl0Delta: UInt8) {
        apply(payload, fields: locate(UnsafeRawBufferPointer(payload)), pictureIDDelta: pictureIDDelta, tl0Delta: tl0Delta)
    }

    private static func apply(_ payload: UnsafeMutableRawBufferPointer, fields: Fields, pictureIDDelta: UInt16, tl0Delta: UInt8) {
        if let offset = fields.pictureIDOffset, pictureIDDelta != 0 {
            let value = readPictureID(payload, offset, long: fields.longPictureID)
            if fields.longPictureID {
                let out = (value &- pictureIDDelta) & 0x7FFF
                payload[offset] = 0x80 | UInt8(out >> 8)
                payload[offset + 1] = UInt8(truncatingIfNeeded: out)
            } else {
                payload[offset] = UInt8((value &- pictureIDDelta) & 0x7F)
            }
        }
        if let offset = fields.tl0Offset, tl0Delta != 0 { payload[offset] = payload[offset] &- tl0Delta }
    }

    /// Finds the fields (RFC 7741 §4.2): X in byte 0, then I/L/T/K, then the PictureID (M bit for
    /// 15 bits), then TL0PICIDX. Truncated descriptors yield no fields.
    static func locate(_ payload: UnsafeRawBufferPointer) -> Fields {
        var fields = Fields()
        guard payload.count >= 2, payload[0] & 0x80 != 0 else { return fields }
        let flags = payload[1]
        var offset = 2
        if flags & 0x80 != 0 {
            guard offset < payload.count else { return Fields() }
            let long = payload[offset] & 0x80 != 0
            guard offset + (long ? 2 : 1) <= payload.count else { return Fields() }
            fields.pictureIDOffset = offset
            fields.longPictureID = long
            offset += long ? 2 : 1
        }
        if flags & 0x40 != 0 {
            guard offset < payload.count else { return Fields() }
            fields.tl0Offset = offset
        }
        return fields
    }

    private static func readPictureID(_ payload: UnsafeMutableRawBufferPointer, _ offset: Int, long: Bool) -> UInt16 {
        long ? (UInt16(payload[offset] & 0x7F) << 8 | UInt16(payload[offset + 1])) : UInt16(payload[offset] & 0x7F)
    }

    private static func isNewer15(_ a: UInt16, than b: UInt16) -> Bool {
        let forward = (a &- b) & 0x7FFF
        return forward != 0 && forward < 0x4000
    }
}
