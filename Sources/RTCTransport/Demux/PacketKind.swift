/// What a datagram on a WebRTC 5-tuple carries, told by its first byte (RFC 7983 §7) and, for
/// RTP versus RTCP, by its second (RFC 5761 §4: RTCP packet types 192–223 occupy the RTP payload
/// type range 64–95 once the marker bit is included).
public enum PacketKind: Sendable, Equatable {
    case stun, dtls, rtp, rtcp
    /// First byte 4–15, which RFC 9443 §3 leaves unassigned: the server's own probes (the
    /// speed test, `MediaPortService`), never WebRTC traffic.
    case probe
    /// ZRTP, TURN channel data or anything else; dropped.
    case unknown

    /// Classifies a datagram without reading past its end.
    @inline(__always)
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> PacketKind {
        guard let first = bytes.first else { return .unknown }
        switch first {
        case 0...3: return .stun
        case 4...15: return .probe
        case 20...63: return .dtls
        case 128...191:
            guard bytes.count >= 2 else { return .unknown }
            return (192...223).contains(bytes[1]) ? .rtcp : .rtp
        default: return .unknown
        }
    }
}
