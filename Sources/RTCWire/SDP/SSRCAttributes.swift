// Source-level attributes: `a=ssrc` and `a=ssrc-group` (RFC 5576) and `a=msid` (RFC 8830).

/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1), e.g. `cname`, `msid`.
public struct SSRCAttribute: Hashable, Sendable, CustomStringConvertible {
    public var ssrc: UInt32
    public var name: String
    public var value: String?

    public init(ssrc: UInt32, name: String, value: String? = nil) {
        self.ssrc = ssrc
        self.name = name
        self.value = value
    }

    static func parse(_ text: Substring) -> SSRCAttribute? {
        let (ssrcText, rest) = SDPScanner.splitOnce(text, " ")
        guard let ssrc = SDPScanner.number(ssrcText, as: UInt32.self), let rest else { return nil }
        let (name, value) = SDPScanner.splitOnce(rest.trimmingSpaces, ":")
        guard SDPScanner.isToken(name) else { return nil }
        return SSRCAttribute(ssrc: ssrc, name: String(name), value: value.map(String.init))
    }

    public var description: String { "\(ssrc) \(name)" + (value.map { ":\($0)" } ?? "") }
}

/// `a=ssrc-group:<semantics> <ssrc>…` (RFC 5576 §4.2): `FID` pairs a stream with its RTX,
/// `SIM` lists simulcast layers.
public struct SSRCGroup: Hashable, Sendable, CustomStringConvertible {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    static func parse(_ text: Substring) -> SSRCGroup? {
        let parts = SDPScanner.fields(text)
        guard let semantics = parts.first, SDPScanner.isToken(semantics) else { return nil }
        var ssrcs: [UInt32] = []
        for part in parts.dropFirst() {
            guard let ssrc = SDPScanner.number(part, as: UInt32.self) else { return nil }
            ssrcs.append(ssrc)
        }
        return SSRCGroup(semantics: String(semantics), ssrcs: ssrcs)
    }

    public var description: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2): which MediaStream and track a section carries.
public struct MediaStreamID: Hashable, Sendable, CustomStringConvertible {
    /// The MediaStream id (`-` for none).
    public var streamID: String
    /// The track id ("appdata").
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    static func parse(_ text: Substring) -> MediaStreamID? {
        let parts = SDPScanner.fields(text)
        guard (1 ... 2).contains(parts.count), SDPScanner.isVisible(parts[0]) else { return nil }
        return MediaStreamID(streamID: String(parts[0]), trackID: parts.count == 2 ? String(parts[1]) : nil)
    }

    public var description: String { trackID.map { "\(streamID) \($0)" } ?? streamID }
}

/// `a=group:<semantics> <mid>…` (RFC 5888 §5), for WebRTC `BUNDLE` (RFC 8843).
public struct SDPGroup: Hashable, Sendable, CustomStringConvertible {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    static func parse(_ text: Substring) -> SDPGroup? {
        let parts = SDPScanner.fields(text)
        guard let semantics = parts.first, SDPScanner.isToken(semantics),
              parts.dropFirst().allSatisfy(SDPScanner.isToken) else { return nil }
        return SDPGroup(semantics: String(semantics), mids: parts.dropFirst().map(String.init))
    }

    public var description: String { ([semantics] + mids).joined(separator: " ") }
}

/// `a=msid-semantic: WMS [<stream id>…]` (the WebRTC-era session attribute Chrome writes).
public struct MSIDSemantic: Hashable, Sendable, CustomStringConvertible {
    public var semantic: String
    public var identifiers: [String]

    public init(semantic: String = "WMS", identifiers: [String] = []) {
        self.semantic = semantic
        self.identifiers = identifiers
    }

    static func parse(_ text: Substring) -> MSIDSemantic? {
        let parts = SDPScanner.fields(text)
        guard let semantic = parts.first, SDPScanner.isToken(semantic),
              parts.dropFirst().allSatisfy(SDPScanner.isVisible) else { return nil }
        return MSIDSemantic(semantic: String(semantic), identifiers: parts.dropFirst().map(String.init))
    }

    /// Written with a space after the colon, as Chrome does.
    public var description: String { ([" " + semantic] + identifiers).joined(separator: " ") }
}
