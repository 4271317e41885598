/// One `m=` section with the JSEP attributes WebRTC uses (RFC 8866 §5.14, RFC 8829 §5).
///
/// Attributes this type does not model are kept in `attributes` (and other line types in
/// `otherLines`) so that parse → serialize keeps them.
public struct MediaDescription: Hashable, Sendable {
    // MARK: - m= line

    public var kind: MediaKind
    /// Port; 9 (discard) with ICE, 0 for a rejected section.
    public var port: UInt16
    /// `/<number of ports>` when written.
    public var portCount: UInt16?
    /// Transport protocol (`UDP/TLS/RTP/SAVPF`, `UDP/DTLS/SCTP`).
    public var proto: String
    /// The format list as written. For RTP sections these are payload type numbers, matching `codecs`.
    public var formats: [String]

    // MARK: - Connection and transport

    public var connection: SDPConnection?
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: SetupRole?
    public var candidates: [Candidate]
    public var endOfCandidates: Bool

    // MARK: - RTP

    public var mid: String?
    /// nil when the section has no direction attribute (which means sendrecv).
    public var direction: Direction?
    public var rtcpMux: Bool
    public var rtcpMuxOnly: Bool
    public var rtcpReducedSize: Bool
    public var extmapAllowMixed: Bool
    /// One per RTP payload type in `formats`, in order.
    public var codecs: [Codec]
    /// `a=rtcp-fb:* …` entries, which apply to every payload type.
    public var wildcardFeedback: [RTCPFeedback]
    public var extensions: [ExtMap]
    public var msid: [MediaStreamID]
    public var ssrcs: [SSRCAttribute]
    public var ssrcGroups: [SSRCGroup]
    public var rids: [RID]
    public var simulcast: Simulcast?

    // MARK: - Data channel

    /// `a=sctp-port` (RFC 8841 §5).
    public var sctpPort: UInt16?
    /// `a=max-message-size` (RFC 8841 §6).
    public var maxMessageSize: UInt64?

    // MARK: - Preserved

    /// Attributes not modelled above, in order.
    public var attributes: [SDPAttribute]
    /// Non-attribute lines other than `c=` (`i=`, `b=`, `k=`), in order.
    public var otherLines: [SDPLine]

    /// An empty section; for RTP media prefer `init(kind:mid:direction:codecs:extensions:)`.
    public init(kind: MediaKind, port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String] = []) {
        self.kind = kind
        self.port = port
        self.portCount = nil
        self.proto = proto
        self.formats = formats
        self.connection = nil
        self.iceUfrag = nil
        self.icePwd = nil
        self.iceOptions = []
        self.fingerprints = []
        self.setup = nil
        self.candidates = []
        self.endOfCandidates = false
        self.mid = nil
        self.direction = nil
        self.rtcpMux = false
        self.rtcpMuxOnly = false
        self.rtcpReducedSize = false
        self.extmapAllowMixed = false
        self.codecs = []
        self.wildcardFeedback = []
        self.extensions = []
        self.msid = []
        self.ssrcs = []
        self.ssrcGroups = []
        self.rids = []
        self.simulcast = nil
        self.sctpPort = nil
        self.maxMessageSize = nil
        self.attributes = []
        self.otherLines = []
    }

    /// An RTP section as JSEP writes it: port 9, `c=IN IP4 0.0.0.0`, rtcp-mux and rtcp-rsize.
    public init(kind: MediaKind, mid: String, direction: Direction, codecs: [Codec], extensions: [ExtMap] = []) {
        self.init(kind: kind)
        self.connection = SDPConnection()
        self.mid = mid
        self.direction = direction
        self.rtcpMux = true
        self.rtcpReducedSize = true
        self.extensions = extensions
        setCodecs(codecs)
    }

    /// A data channel section (RFC 8841): `m=application 9 UDP/DTLS/SCTP webrtc-datachannel`.
    public static func dataChannel(mid: String, sctpPort: UInt16 = 5000, maxMessageSize: UInt64 = 262_144) -> MediaDescription {
        var media = MediaDescription(kind: .application, proto: "UDP/DTLS/SCTP", formats: ["webrtc-datachannel"])
        media.connection = SDPConnection()
        media.mid = mid
        media.sctpPort = sctpPort
        media.maxMessageSize = maxMessageSize
        return media
    }

    // MARK: - Conveniences

    /// Replaces the codecs and the `m=` format list together.
    public mutating func setCodecs(_ codecs: [Codec]) {
        self.codecs = codecs
        self.formats = codecs.map { String($0.payloadType) }
    }

    /// True for RTP profiles (`RTP/AVP`, `UDP/TLS/RTP/SAVPF`, …).
    public var isRTP: Bool { proto.uppercased().contains("RTP/") }

    /// True when the section was rejected (port 0, RFC 3264 §6).
    public var isRejected: Bool { port == 0 }

    /// The direction in effect (sendrecv when unspecified, RFC 8866 §6.7).
    public var effectiveDirection: Direction { direction ?? .sendrecv }

    /// The codec with `payloadType`.
    public func codec(payloadType: UInt8) -> Codec? { codecs.first { $0.payloadType == payloadType } }

    /// The id negotiated for a header extension URI.
    public func extensionID(uri: String) -> UInt16? { extensions.first { $0.uri == uri }?.id }

    /// The `cname` given for `ssrc`.
    public func cname(ssrc: UInt32) -> String? {
        ssrcs.first { $0.ssrc == ssrc && $0.name == "cname" }?.value
    }

    /// Distinct SSRCs in `a=ssrc` lines, in first-seen order.
    public var ssrcList: [UInt32] {
        var seen = Set<UInt32>()
        return ssrcs.compactMap { seen.insert($0.ssrc).inserted ? $0.ssrc : nil }
    }

    /// The RTX SSRC paired with `ssrc` by an `FID` group.
    public func rtxSSRC(for ssrc: UInt32) -> UInt32? {
        ssrcGroups.first { $0.semantics == "FID" && $0.ssrcs.first == ssrc && $0.ssrcs.count > 1 }?.ssrcs[1]
    }

    /// Adds the `a=ssrc` lines (and an FID group when `rtxSSRC` is given) for one sent stream.
    public mutating func addSendStream(ssrc: UInt32, rtxSSRC: UInt32? = nil, cname: String, streamID: String, trackID: String) {
        let all = [ssrc] + (rtxSSRC.map { [$0] } ?? [])
        if let rtxSSRC { ssrcGroups.append(SSRCGroup(semantics: "FID", ssrcs: [ssrc, rtxSSRC])) }
        for source in all {
            ssrcs.append(SSRCAttribute(ssrc: source, name: "cname", value: cname))
            ssrcs.append(SSRCAttribute(ssrc: source, name: "msid", value: "\(streamID) \(trackID)"))
        }
        if !msid.contains(MediaStreamID(streamID: streamID, trackID: trackID)) {
            msid.append(MediaStreamID(streamID: streamID, trackID: trackID))
        }
    }

    /// Declares simulcast layers sent by rid (RFC 8853): `a=rid:<id> send` lines and `a=simulcast:send`.
    public mutating func setSendSimulcast(rids: [String]) {
        self.rids = rids.map { RID(id: $0, direction: .send) }
        self.simulcast = Simulcast(sendRIDs: rids)
    }

    /// Applies ICE and DTLS parameters to this section.
    public mutating func apply(_ transport: TransportParameters) {
        iceUfrag = transport.iceUfrag
        icePwd = transport.icePwd
        iceOptions = transport.iceOptions
        fingerprints = transport.fingerprints
        setup = transport.setup
        candidates = transport.candidates
        endOfCandidates = transport.endOfCandidates
        if let first = transport.candidates.first, !isRejected {
            port = first.port
            let ipv6 = first.address.contains(":")
            connection = SDPConnection(addressType: ipv6 ? "IP6" : "IP4", address: first.address)
        } else if connection == nil {
            connection = SDPConnection()
        }
    }
}

/// ICE and DTLS parameters shared by the sections of one transport (BUNDLE).
public struct TransportParameters: Hashable, Sendable {
    public var iceUfrag: String
    public var icePwd: String
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: SetupRole
    public var candidates: [Candidate]
    public var endOfCandidates: Bool

    public init(
        iceUfrag: String, icePwd: String, fingerprint: Fingerprint, setup: SetupRole,
        iceOptions: [String] = [], candidates: [Candidate] = [], endOfCandidates: Bool = false
    ) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.iceOptions = iceOptions
        self.fingerprints = [fingerprint]
        self.setup = setup
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }
}
