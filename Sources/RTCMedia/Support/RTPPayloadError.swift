// Errors raised while reading RTP payloads of outside origin: VP8 payload descriptors (RFC 7741 §4.2),
// VP9 payload descriptors (RFC 9628 §4.2),
// Opus packet framing (RFC 6716 §3), H.264 payloads (RFC 6184 §5) and AV1 payloads (av1-rtp-spec §4.4).

/// Why an RTP payload was rejected.
public enum RTPPayloadError: Error, Sendable, Equatable {
    /// The payload has no bytes at all.
    case emptyPayload
    /// The VP8 or VP9 payload descriptor announces more bytes than the payload holds.
    case truncatedDescriptor(needed: Int, available: Int)
    /// The VP8 payload descriptor is followed by no VP8 data.
    case missingVP8Data
    /// A VP9 flexible-mode descriptor lists more than 3 reference indices (N set on the third, RFC 9628 §4.2).
    case vp9TooManyReferences
    /// A VP9 scalability structure's resolutions or picture group run past the payload (RFC 9628 §4.2.1).
    case vp9TruncatedScalabilityStructure
    /// A VP9 descriptor's SID names a spatial layer its own scalability structure does not have.
    case vp9SpatialIDOutOfRange
    /// The VP9 payload descriptor is followed by no VP9 data.
    case vp9MissingFrameData
    /// The first packet of a VP8 frame is shorter than the 3-byte VP8 payload header (RFC 7741 §4.3).
    case truncatedVP8Header
    /// An Opus code 1 packet's two equal frames do not split the payload evenly (RFC 6716 §3.4 R3).
    case opusOddCBRLength
    /// An Opus frame-length field, padding or frame runs past the end of the packet (RFC 6716 §3.4 R4, R7).
    case opusTruncated
    /// An Opus frame is longer than 1 275 bytes (RFC 6716 §3.4 R2).
    case opusFrameTooLong
    /// An Opus code 3 packet announces 0 frames, or more than 120 ms of audio (RFC 6716 §3.4 R5).
    case opusInvalidFrameCount
    /// An Opus code 3 CBR packet's data is not a multiple of its frame count (RFC 6716 §3.4 R6).
    case opusCBRLengthMismatch
    /// An H.264 NAL unit type this depacketizer does not take (STAP-B, MTAP, FU-B: interleaved
    /// mode only, RFC 6184 §5.4), or the forbidden bit is set.
    case h264UnsupportedNALType(UInt8)
    /// An H.264 STAP-A's NAL unit size runs past the payload, or an aggregate or fragment is too short.
    case h264Truncated
    /// An AV1 OBU element's length runs past the payload, an OBU is empty, larger than
    /// `AV1Depacketizer.maxElementSize`, has the forbidden bit set or an obu_size that disagrees
    /// with its element, or a temporal unit's OBU has no obu_size (av1-rtp-spec §4.4; AV1 §5.3).
    case av1MalformedOBU
    /// An AV1 payload's Z bit says its first element continues one the previous payload did not
    /// leave open (Y), or Z is clear while one is open (av1-rtp-spec §4.4).
    case av1UnexpectedContinuation
}
