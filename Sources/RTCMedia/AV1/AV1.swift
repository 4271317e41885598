// AV1 over RTP (av1-rtp-spec §4.4): every payload starts with a one-byte aggregation header.
//
//      0 1 2 3 4 5 6 7
//     +-+-+-+-+-+-+-+-+
//     |Z|Y| W |N|-|-|-|
//     +-+-+-+-+-+-+-+-+
//
// Z: the first OBU element continues one from the previous packet; Y: the last one continues in
// the next; W: the number of OBU elements (0: each has a length field); N: the packet is the
// first of a coded video sequence (a key frame).

/// AV1 payload helpers read without allocating.
public enum AV1 {
    /// Whether `payload` is the first packet of a key frame: N set, and not a continuation (Z clear).
    @inline(__always)
    public static func isKeyFrame(payload: UnsafeRawBufferPointer) -> Bool {
        guard let header = payload.first else { return false }
        return header & 0x08 != 0 && header & 0x80 == 0
    }

    /// Whether `payload` starts with a new OBU (Z clear): the first packet of a temporal unit is
    /// such a payload, a packet that continues an OBU of the previous one is not.
    @inline(__always)
    public static func startsOBU(payload: UnsafeRawBufferPointer) -> Bool {
        guard let header = payload.first else { return false }
        return header & 0x80 == 0
    }

    /// Whether the first OBU element of `payload` is a whole or starting sequence header (AV1
    /// §5.5): a sender puts one at the start of every key frame, so a receiver knows a key frame
    /// even from a sender that does not set N.
    public static func startsWithSequenceHeader(payload: UnsafeRawBufferPointer) -> Bool {
        guard let header = payload.first, header & 0x80 == 0 else { return false }
        var offset = 1
        // W = 1: the only element has no length field; otherwise a LEB128 length comes first.
        if header >> 4 & 0x03 != 1 {
            guard AV1OBU.readLEB128(payload, at: &offset) != nil else { return false }
        }
        guard offset < payload.count else { return false }
        let obu = payload[offset]
        return obu & 0x80 == 0 && AV1OBU.type(obu) == AV1OBU.sequenceHeader
    }
}
