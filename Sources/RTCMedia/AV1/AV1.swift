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
}
