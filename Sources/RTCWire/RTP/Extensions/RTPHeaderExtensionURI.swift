/// The `a=extmap` URIs of the header extensions WebRTC negotiates.
public enum RTPHeaderExtensionURI {
    /// RFC 6464 client-to-mixer audio level.
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// abs-send-time: 24-bit 6.18 fixed-point send time (webrtc.org).
    public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// RFC 8843 §15 media identification (BUNDLE `mid`).
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RFC 8852 §3.1 RtpStreamId (simulcast `rid`).
    public static let rid = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// RFC 8852 §3.2 RepairedRtpStreamId (the rid an RTX stream repairs).
    public static let repairedRid = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// abs-capture-time: the 64-bit NTP time the media was captured (webrtc.org), forwarded
    /// unchanged by SFUs so a receiver can relate media to its origin across hops.
    public static let absCaptureTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    /// The AV1 Dependency Descriptor (av1-rtp-spec Appendix A, §A.9): each frame's layers, decode
    /// targets, references and chains, so a forwarder picks layers without reading the payload.
    public static let dependencyDescriptor = "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"
    /// RFC 5285-era transmission time offset, listed for completeness.
    public static let transmissionTimeOffset = "urn:ietf:params:rtp-hdrext:toffset"
}
