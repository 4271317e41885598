// Cheap facts about VP8 data that forwarders and receivers need per packet, without decoding or allocating.
//
// A VP8 frame starts with a 3-byte frame tag (RFC 6386 §9.1; carried as the "VP8 payload header",
// RFC 7741 §4.3): bit 0 is P, the inverse key-frame flag. A key frame continues with the start code
// 9D 01 2A and two little-endian 16-bit fields whose low 14 bits are the width and height.

/// VP8 bitstream and RTP payload inspection.
public enum VP8 {
    // MARK: - Public API

    /// RTP clock rate of VP8 (RFC 7741 §6.1).
    public static let rtpClockRate = 90_000

    /// Whether an RTP payload (descriptor + VP8 data) starts a key frame: the start of partition 0 whose
    /// VP8 payload header has P = 0 (RFC 7741 §4.3). False for malformed or non-initial packets.
    public static func isKeyFrame(payload: UnsafeRawBufferPointer) -> Bool {
        guard let (descriptor, length) = try? VP8PayloadDescriptor.parse(payload), descriptor.isFrameStart,
              payload.count >= length + 3 else { return false }
        return payload[length] & 0x01 == 0
    }

    /// Whether an RTP payload held in an array starts a key frame (see the buffer overload).
    public static func isKeyFrame(payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { isKeyFrame(payload: $0) }
    }

    /// Whether a bare VP8 frame (no descriptor) is a key frame: P = 0 and the key-frame start code present.
    public static func isKeyFrame(bitstream: UnsafeRawBufferPointer) -> Bool {
        bitstream.count >= 10 && bitstream[0] & 0x01 == 0
            && bitstream[3] == 0x9D && bitstream[4] == 0x01 && bitstream[5] == 0x2A
    }

    /// Whether a bare VP8 frame held in an array is a key frame.
    public static func isKeyFrame(bitstream: [UInt8]) -> Bool {
        bitstream.withUnsafeBytes { isKeyFrame(bitstream: $0) }
    }

    /// Width and height coded in a key frame's header, or nil for a delta frame or truncated data.
    public static func keyFrameSize(bitstream: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard isKeyFrame(bitstream: bitstream) else { return nil }
        let width = (Int(bitstream[6]) | Int(bitstream[7]) << 8) & 0x3FFF
        let height = (Int(bitstream[8]) | Int(bitstream[9]) << 8) & 0x3FFF
        return (width, height)
    }

    /// Width and height coded in a key frame held in an array.
    public static func keyFrameSize(bitstream: [UInt8]) -> (width: Int, height: Int)? {
        bitstream.withUnsafeBytes { keyFrameSize(bitstream: $0) }
    }
}
