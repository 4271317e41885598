import RTCNet
import RTCWire

/// An ICE candidate (RFC 8445 §5.1, SDP syntax RFC 8839 §5.1): UDP, or TCP with its `tcptype`
/// (RFC 6544 §4.5). We gather host candidates only: the server announces its host (or
/// `--public-ip`) address on UDP and, with ICE-TCP, a passive TCP candidate; clients check them.
public struct ICECandidate: Hashable, Sendable, CustomStringConvertible {
    /// The direction of a TCP candidate's connections (RFC 6544 §4.5).
    public enum TCPType: String, Hashable, Sendable {
        /// Opens connections (a client's candidate; its port is 9, the discard port).
        case active
        /// Accepts connections (the server's).
        case passive
        /// Simultaneous open.
        case so
    }

    public var foundation: String
    public var component: Int
    public var priority: UInt32
    public var address: SocketAddress
    /// `host`, `srflx`, `prflx` or `relay`.
    public var type: String
    /// `nil` for a UDP candidate; the TCP candidate's type otherwise.
    public var tcpType: TCPType?

    /// Where checks go: an address, and the route (`nil`: directly over UDP).
    struct Path: Hashable, Sendable {
        var address: SocketAddress
        var route: ICERoute?
    }

    /// `true` for an ICE-TCP candidate.
    public var isTCP: Bool { tcpType != nil }

    public init(foundation: String = "1", component: Int = 1, priority: UInt32? = nil, address: SocketAddress, type: String = "host",
                tcpType: TCPType? = nil) {
        self.foundation = foundation
        self.component = component
        self.priority = priority ?? ICECandidate.priority(typePreference: type == "host" ? 126 : 100, component: component)
        self.address = address
        self.type = type
        self.tcpType = tcpType
    }

    /// A passive TCP host candidate (RFC 6544 §4.2): type preference 90, below UDP host's 126, so a
    /// peer that can use both prefers UDP; local preference (2^13)·4 (passive direction) + 8191 − `index`.
    public static func passiveTCP(foundation: String = "2", address: SocketAddress, index: Int = 0) -> ICECandidate {
        ICECandidate(foundation: foundation, priority: priority(typePreference: 90, localPreference: 4 << 13 | UInt32(8191 - min(index, 8191))),
                     address: address, tcpType: .passive)
    }

    /// RFC 8445 §5.1.2.1: (2^24)·type preference + (2^8)·local preference + (256 − component).
    public static func priority(typePreference: UInt32, localPreference: UInt32 = 65535, component: Int = 1) -> UInt32 {
        (typePreference << 24) | (localPreference << 8) | UInt32(256 - max(1, min(component, 256)))
    }

    /// Parses `candidate:1 1 udp 2130706431 192.0.2.1 7881 typ host ...` (with or without `a=`),
    /// or a TCP candidate with its `tcptype` (RFC 6544 §4.5). Only numeric addresses are accepted
    /// (mDNS `.local` names are not resolved here).
    public init(sdpAttribute text: String) throws(ICEError) {
        guard let candidate = try? Candidate(parsing: text), let parsed = ICECandidate(candidate) else { throw .badCandidate(text) }
        self = parsed
    }

    /// The SDP attribute value: `candidate:<foundation> <component> udp <priority> <ip> <port> typ <type>`
    /// (`tcp … tcptype <type>` for TCP).
    public var sdpAttribute: String { sdpCandidate.candidateLine }

    public var description: String { sdpAttribute }
}
