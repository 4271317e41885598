// Cheap facts about VP9 RTP payloads that forwarders need per packet, without decoding or allocating.

/// VP9 RTP payload inspection (RFC 9628).
public enum VP9 {
    // MARK: - Public API

    /// RTP clock rate of VP9 (RFC 9628 §7.1).
    public static let rtpClockRate = 90_000

    /// Whether an RTP payload starts a key picture: the first packet of the base spatial layer's
    /// frame with P = 0 (RFC 9628 §4.2). False for malformed or non-initial packets.
    public static func isKeyFrame(payload: UnsafeRawBufferPointer) -> Bool {
        guard let (descriptor, _) = try? VP9PayloadDescriptor.parse(payload) else { return false }
        return descriptor.isKeyFrameStart
    }

    /// Whether an RTP payload held in an array starts a key picture.
    public static func isKeyFrame(payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { isKeyFrame(payload: $0) }
    }
}
