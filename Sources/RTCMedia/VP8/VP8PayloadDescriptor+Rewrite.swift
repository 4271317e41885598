// In-place rewriting of a forwarded VP8 payload's PictureID and TL0PICIDX (RFC 7741 §4.2). An SFU that
// switches a subscriber between simulcast layers must keep these continuous on the outgoing stream, or the
// receiver sees jumps it reads as loss; rewriting the bytes where they lie avoids any copy per packet.

extension VP8PayloadDescriptor {
    // MARK: - Public API

    /// Overwrites the PictureID and/or TL0PICIDX fields of a payload in place, without allocating.
    ///
    /// Only fields the payload already carries are changed; the PictureID keeps the payload's width
    /// (7 or 15 bits) and is truncated to it.
    /// - Parameters:
    ///   - payload: an RTP payload starting with a VP8 payload descriptor.
    ///   - pictureID: the new PictureID, or nil to leave it.
    ///   - tl0PicIndex: the new TL0PICIDX, or nil to leave it.
    /// - Throws: `RTPPayloadError` when the descriptor is malformed (nothing is written then).
    public static func rewrite(_ payload: UnsafeMutableRawBufferPointer, pictureID: UInt16?,
                               tl0PicIndex: UInt8?) throws(RTPPayloadError) {
        let (descriptor, _) = try parse(UnsafeRawBufferPointer(payload))
        // Offsets follow the layout parse just validated: byte 0, extension byte 1, then I, then L.
        var offset = 2
        if descriptor.pictureID != nil {
            if let pictureID {
                if descriptor.longPictureID {
                    payload[offset] = 0x80 | UInt8(pictureID >> 8 & 0x7F)
                    payload[offset + 1] = UInt8(pictureID & 0xFF)
                } else {
                    payload[offset] = UInt8(pictureID & 0x7F)
                }
            }
            offset += descriptor.longPictureID ? 2 : 1
        }
        if descriptor.tl0PicIndex != nil, let tl0PicIndex { payload[offset] = tl0PicIndex }
    }
}
