// The Opus RTP payload format (RFC 7587): exactly one Opus packet per RTP payload, no payload header,
// RTP timestamps on a 48 kHz clock whatever the codec's internal rate (§4.1). Packetizing is therefore the
// identity; depacketizing is validation of the Opus framing.

/// Opus RTP payload helpers (RFC 7587).
public enum OpusPayload {
    /// RTP clock rate of Opus, always 48 000 (RFC 7587 §4.1).
    public static let rtpClockRate = 48_000

    /// The RTP payload for an Opus packet: the packet itself (RFC 7587 §4.2).
    public static func packetize(_ packet: [UInt8]) -> [UInt8] { packet }

    /// Validates an Opus RTP payload and describes it, without allocating.
    /// - Returns: the packet's TOC facts; `samplesAt48kHz` is the RTP timestamp advance it covers.
    /// - Throws: `RTPPayloadError` when the TOC framing is invalid (RFC 6716 §3.4).
    public static func depacketize(_ payload: UnsafeRawBufferPointer) throws(RTPPayloadError) -> OpusPacketInfo {
        try OpusPacketInfo(packet: payload)
    }

    /// Validates an Opus RTP payload held in an array (see the buffer overload).
    public static func depacketize(_ payload: [UInt8]) throws(RTPPayloadError) -> OpusPacketInfo {
        try OpusPacketInfo(packet: payload)
    }
}
