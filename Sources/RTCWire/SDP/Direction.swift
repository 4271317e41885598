/// A media section's direction attribute (RFC 8866 §6.7), seen from the description's author.
public enum Direction: String, Hashable, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The direction an answerer uses to mirror this one (RFC 3264 §6.1).
    public var reversed: Direction {
        switch self {
        case .sendonly: return .recvonly
        case .recvonly: return .sendonly
        case .sendrecv, .inactive: return self
        }
    }

    /// True when the author sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// True when the author receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}

/// The DTLS role attribute `a=setup` (RFC 4145 §4, RFC 5763 §5).
public enum SetupRole: String, Hashable, Sendable, CaseIterable {
    /// Offerer: either role (JSEP offers always use this).
    case actpass
    /// Will start the DTLS handshake (client).
    case active
    /// Will wait for the handshake (server).
    case passive
    /// Not connecting now.
    case holdconn
}

/// A media section's kind, the first field of `m=` (RFC 8866 §5.14).
public struct MediaKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let audio = MediaKind(rawValue: "audio")
    public static let video = MediaKind(rawValue: "video")
    /// Data channels (`m=application … webrtc-datachannel`).
    public static let application = MediaKind(rawValue: "application")

    public var description: String { rawValue }
}
