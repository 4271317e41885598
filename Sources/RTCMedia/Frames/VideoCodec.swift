// The video codecs the RTP paths carry (the SFU forwards each; the SDK encodes and decodes each).

/// A video codec, named as in SDP `a=rtpmap` (compared case-insensitively, as SDP does).
public enum VideoCodec: String, Sendable, Hashable, CaseIterable {
    /// VP8 (RFC 6386), RTP payload format RFC 7741.
    case vp8 = "VP8"
    /// H.264 Constrained Baseline (profile-level-id 42e01f) in packetization-mode 1 (RFC 6184).
    case h264 = "H264"
    /// VP9 profile 0, RTP payload format RFC 9628.
    case vp9 = "VP9"
    /// AV1 Main profile (profile 0), RTP payload format av1-rtp-spec.
    case av1 = "AV1"

    /// The codec of an encoding name (`vp8`, `H264`…); nil for any other.
    public init?(encodingName: String) {
        switch encodingName.lowercased() {
        case "vp8": self = .vp8
        case "h264": self = .h264
        case "vp9": self = .vp9
        case "av1": self = .av1
        default: return nil
        }
    }
}
