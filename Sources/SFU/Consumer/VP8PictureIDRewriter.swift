/// Keeps VP8 PictureID and TL0PICIDX (RFC 7741 §4.2) continuous for a subscriber when a simulcast
/// consumer switches between streams that each count on their own, and when it drops the frames
/// of upper temporal layers (`VP8TemporalLayerSelector`): a decoder that sees the PictureID jump
/// backwards may take the new key frame for an old frame and drop it, and a receiver that places
/// frames by PictureID (libwebrtc's VP8 reference finder) waits for every id it has not seen.
///
/// The fields are rewritten in place in the send slot by subtracting a delta: fixed at each
/// switch, and one more after each dropped frame, so every kept frame keeps its spacing (gaps
/// still show loss) and dropped ones leave none. TL0 frames are never dropped, so TL0PICIDX only
/// moves at a switch. Recent frames keep the delta they were sent with (a ring of
/// `ringSize`, made once): a packet that comes late (a publisher's retransmission, reordering)
/// goes out with its frame's id, and a late packet of a frame whose id was already counted as
/// sent must be sent too (`drop` says so), or the subscriber would wait for that id.
struct VP8PictureIDRewriter: Sendable {
    /// Offsets of the rewritable fields in one payload.
    struct Fields: Equatable {
        var pictureIDOffset: Int?
        var longPictureID = false
        var tl0Offset: Int?
    }

    /// Frames remembered, by input PictureID modulo this.
    static let ringSize = 64

    /// Deltas in force for the newest frames: `out = in − delta` (15 or 7 bits for the
    /// PictureID, 8 for TL0PICIDX).
    private(set) var pictureIDDelta: UInt16 = 0
    private(set) var tl0Delta: UInt8 = 0
    private var lastPictureID: UInt16?
    private var lastTL0: UInt8?
    private var resyncPending = false
    /// The newest input PictureID seen (sent or dropped) since the last resync.
    private var newestInput: UInt16?
    /// Per slot `id & (ringSize - 1)`: bits 0–14 the input id, 15 set when valid, 16–30 the
    /// delta it was sent with, 31 set when dropped.
    private var frames = [UInt32](repeating: 0, count: ringSize)

    /// The next packet starts a new stream: continue after the last values sent.
    mutating func resync() { resyncPending = true }

    /// Rewrites `payload` (a VP8 payload in a send slot) and returns the deltas used, so a
    /// retransmission can apply the same ones.
    mutating func rewrite(_ payload: UnsafeMutableRawBufferPointer) -> (UInt16, UInt8) {
        let fields = Self.locate(UnsafeRawBufferPointer(payload))
        let mask: UInt16 = fields.longPictureID ? 0x7FFF : 0x7F
        if resyncPending {
            resyncPending = false
            newestInput = nil
            for slot in frames.indices { frames[slot] = 0 }
            if let offset = fields.pictureIDOffset, let last = lastPictureID {
                let value = Self.readPictureID(payload, offset, long: fields.longPictureID)
                pictureIDDelta = (value &- (last &+ 1)) & mask
            }
            if let offset = fields.tl0Offset, let last = lastTL0 {
                tl0Delta = payload[offset] &- (last &+ 1)
            }
        }
        var delta = pictureIDDelta
        if let offset = fields.pictureIDOffset {
            delta = sentDelta(Self.readPictureID(payload, offset, long: fields.longPictureID), mask: mask)
        }
        Self.apply(payload, fields: fields, pictureIDDelta: delta, tl0Delta: tl0Delta)
        if let offset = fields.pictureIDOffset {
            let out = Self.readPictureID(payload, offset, long: fields.longPictureID)
            if lastPictureID.map({ Self.isNewer(out, than: $0, mask: mask) }) ?? true { lastPictureID = out }
        }
        if let offset = fields.tl0Offset {
            let out = payload[offset]
            if lastTL0.map({ Int8(bitPattern: out &- $0) > 0 }) ?? true { lastTL0 = out }
        }
        return (delta, tl0Delta)
    }

    /// A packet of frame `pictureID` that the temporal layer choice drops. Frames after it get
    /// one more delta (the first time the frame is seen). Returns true when the packet must be
    /// sent anyway: its frame's id was already taken as sent (a packet of it went out, or it was
    /// a gap before a frame that did), so the subscriber expects it.
    mutating func drop(pictureID: UInt16, long: Bool) -> Bool {
        guard !resyncPending else { return false }  // the next stream's delta starts after what was sent
        let mask: UInt16 = long ? 0x7FFF : 0x7F
        let value = pictureID & mask
        let entry = frames[Int(value) & (Self.ringSize - 1)]
        if entry & 0x8000 != 0, UInt16(entry & 0x7FFF) == value { return entry & 0x8000_0000 == 0 }
        guard newestInput.map({ Self.isNewer(value, than: $0, mask: mask) }) ?? true else { return false }
        fillGap(before: value, mask: mask)
        frames[Int(value) & (Self.ringSize - 1)] = UInt32(value) | 0x8000 | 0x8000_0000
        pictureIDDelta = (pictureIDDelta &+ 1) & 0x7FFF
        newestInput = value
        return false
    }

    /// The delta frame `value` goes out with: its own if it was seen, the current one for a new
    /// frame (recorded), the current one for an older frame no longer remembered.
    private mutating func sentDelta(_ value: UInt16, mask: UInt16) -> UInt16 {
        let entry = frames[Int(value) & (Self.ringSize - 1)]
        if entry & 0x8000 != 0, UInt16(entry & 0x7FFF) == value, entry & 0x8000_0000 == 0 {
            return UInt16(entry >> 16 & 0x7FFF)
        }
        if newestInput.map({ Self.isNewer(value, than: $0, mask: mask) }) ?? true {
            fillGap(before: value, mask: mask)
            newestInput = value
        }
        frames[Int(value) & (Self.ringSize - 1)] = UInt32(value) | 0x8000 | UInt32(pictureIDDelta) << 16
        return pictureIDDelta
    }

    /// Frames between the newest seen and `value` not seen yet (lost or late so far) are taken as
    /// sent with the current delta: the ids after them leave room for them.
    private mutating func fillGap(before value: UInt16, mask: UInt16) {
        guard let newest = newestInput else { return }
        let gap = Int((value &- newest) & mask) - 1
        guard gap > 0 else { return }
        for step in 1 ... min(gap, Self.ringSize) {
            let id = (newest &+ UInt16(step)) & mask
            frames[Int(id) & (Self.ringSize - 1)] = UInt32(id) | 0x8000 | UInt32(pictureIDDelta) << 16
        }
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

    /// Whether PictureID `a` follows `b` (half the id space forward, 7 or 15 bits by `mask`).
    private static func isNewer(_ a: UInt16, than b: UInt16, mask: UInt16) -> Bool {
        let forward = (a &- b) & mask
        return forward != 0 && forward <= mask / 2
    }
}
