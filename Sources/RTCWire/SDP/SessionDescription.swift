/// A session description (RFC 8866) with the JSEP subset WebRTC uses (RFC 8829).
///
/// Parse with `init(parsing:)`, write with `serialize()` (CRLF line ends). Unknown attributes
/// and line types are kept in `attributes` / `otherLines` so a round trip does not lose them;
/// modelled attributes are written in a fixed order (roughly Chrome's).
public struct SessionDescription: Hashable, Sendable {
    // MARK: - Session lines

    /// `v=`; always 0.
    public var version: Int
    public var origin: SDPOrigin
    /// `s=`; JSEP writes `-`.
    public var sessionName: String
    public var connection: SDPConnection?
    public var timing: SDPTiming

    // MARK: - Session attributes

    /// `a=group:` lines (BUNDLE).
    public var groups: [SDPGroup]
    public var msidSemantic: MSIDSemantic?
    /// `a=ice-lite` (RFC 8445 §2.5): this side only answers connectivity checks.
    public var iceLite: Bool
    public var extmapAllowMixed: Bool
    /// Session-level transport attributes; sections may override them (Firefox writes them here).
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: SetupRole?

    // MARK: - Sections and preserved lines

    public var media: [MediaDescription]
    /// Session attributes not modelled above, in order.
    public var attributes: [SDPAttribute]
    /// Session lines other than v/o/s/c/t (`i=`, `b=`, `r=`, …), in RFC 8866 §5 order.
    public var otherLines: [SDPLine]

    public init(origin: SDPOrigin, media: [MediaDescription] = []) {
        self.version = 0
        self.origin = origin
        self.sessionName = "-"
        self.connection = nil
        self.timing = SDPTiming()
        self.groups = []
        self.msidSemantic = nil
        self.iceLite = false
        self.extmapAllowMixed = false
        self.iceUfrag = nil
        self.icePwd = nil
        self.iceOptions = []
        self.fingerprints = []
        self.setup = nil
        self.media = media
        self.attributes = []
        self.otherLines = []
    }

    // MARK: - Lookups

    /// The mids of the first BUNDLE group, if any.
    public var bundleMids: [String]? { groups.first { $0.semantics == "BUNDLE" }?.mids }

    /// The section with `mid`.
    public func media(mid: String) -> MediaDescription? { media.first { $0.mid == mid } }

    /// ICE ufrag for a section: its own, else the session's.
    public func iceUfrag(of section: MediaDescription) -> String? { section.iceUfrag ?? iceUfrag }
    /// ICE password for a section: its own, else the session's.
    public func icePwd(of section: MediaDescription) -> String? { section.icePwd ?? icePwd }
    /// DTLS fingerprints for a section: its own, else the session's.
    public func fingerprints(of section: MediaDescription) -> [Fingerprint] {
        section.fingerprints.isEmpty ? fingerprints : section.fingerprints
    }
    /// DTLS setup role for a section: its own, else the session's.
    public func setup(of section: MediaDescription) -> SetupRole? { section.setup ?? setup }

    /// Sets `a=group:BUNDLE` to every non-rejected section's mid.
    public mutating func bundleAll() {
        let mids = media.filter { !$0.isRejected }.compactMap(\.mid)
        groups.removeAll { $0.semantics == "BUNDLE" }
        groups.insert(SDPGroup(semantics: "BUNDLE", mids: mids), at: 0)
    }
}
