// Building JSEP offers and answers (RFC 8829 §5.2–5.3, RFC 3264 §6).

/// How to answer an offer.
public struct AnswerOptions: Sendable {
    /// ICE and DTLS parameters; `setup` must be `.active` or `.passive` in an answer (RFC 5763 §5).
    public var transport: TransportParameters
    public var capabilities: MediaCapabilities
    /// Sets `a=ice-lite` (the server is an ICE-lite agent).
    public var iceLite: Bool
    public var sessionID: String
    /// Accept an offered data channel section.
    public var acceptDataChannel: Bool
    /// The direction of each accepted RTP section; by default the offer's mirrored.
    public var direction: @Sendable (MediaDescription) -> Direction

    public init(
        transport: TransportParameters, capabilities: MediaCapabilities = .webRTC, iceLite: Bool = false,
        sessionID: String, acceptDataChannel: Bool = true,
        direction: @escaping @Sendable (MediaDescription) -> Direction = { $0.effectiveDirection.reversed }
    ) {
        self.transport = transport
        self.capabilities = capabilities
        self.iceLite = iceLite
        self.sessionID = sessionID
        self.acceptDataChannel = acceptDataChannel
        self.direction = direction
    }
}

extension SessionDescription {
    /// A JSEP offer over `media`: every section gets `transport` (setup should be `.actpass`),
    /// and all are bundled on one transport.
    /// - Parameter sessionVersion: a renegotiation keeps `sessionID` and increments this (RFC 3264 §8).
    public static func offer(
        sessionID: String, sessionVersion: UInt64 = 2, transport: TransportParameters, media: [MediaDescription], iceLite: Bool = false
    ) -> SessionDescription {
        var offer = SessionDescription(origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion))
        // "WMS *": every a=msid counts (RFC 8830 §2); with no ids listed, strict parsers drop them.
        offer.msidSemantic = MSIDSemantic(identifiers: ["*"])
        offer.iceLite = iceLite
        offer.media = media.map { section in
            var section = section
            section.apply(transport)
            return section
        }
        offer.bundleAll()
        return offer
    }

    /// An answer to this offer: codecs and extensions narrowed to `options.capabilities`,
    /// directions mirrored, simulcast reversed (RFC 8853 §5.3), unsupported sections rejected
    /// with port 0 and left out of BUNDLE.
    public func answer(_ options: AnswerOptions) -> SessionDescription {
        var answer = SessionDescription(origin: SDPOrigin(sessionID: options.sessionID))
        answer.msidSemantic = MSIDSemantic(identifiers: ["*"])
        answer.iceLite = options.iceLite
        answer.extmapAllowMixed = extmapAllowMixed
        answer.media = media.map { answerSection(to: $0, options) }
        if let offered = bundleMids {
            let accepted = answer.media.filter { !$0.isRejected }.compactMap(\.mid).filter(offered.contains)
            answer.groups = [SDPGroup(semantics: "BUNDLE", mids: accepted)]
        }
        return answer
    }

    private func answerSection(to offered: MediaDescription, _ options: AnswerOptions) -> MediaDescription {
        if offered.kind == .application, offered.proto.uppercased().hasSuffix("SCTP"), !offered.isRejected,
           options.acceptDataChannel, let mid = offered.mid {
            var section = MediaDescription.dataChannel(mid: mid, maxMessageSize: offered.maxMessageSize ?? 262_144)
            section.proto = offered.proto
            section.formats = offered.formats
            section.apply(options.transport)
            return section
        }
        let codecs = offered.isRTP ? options.capabilities.negotiate(offered.codecs, kind: offered.kind) : []
        guard !offered.isRejected, let mid = offered.mid, codecs.contains(where: { !$0.isRTX }) else {
            return Self.rejected(offered)
        }
        let extensions = offered.extensions
            .filter { options.capabilities.headerExtensions.contains($0.uri) }
            .map { ExtMap(id: $0.id, uri: $0.uri) }
        var section = MediaDescription(
            kind: offered.kind, mid: mid, direction: options.direction(offered), codecs: codecs, extensions: extensions)
        section.proto = offered.proto
        section.rtcpMux = offered.rtcpMux
        section.rtcpReducedSize = offered.rtcpReducedSize
        section.extmapAllowMixed = offered.extmapAllowMixed
        if let simulcast = offered.simulcast {
            section.simulcast = simulcast.reversed
            section.rids = offered.rids.map { RID(id: $0.id, direction: $0.direction.reversed) }
        }
        section.apply(options.transport)
        return section
    }

    /// A rejected section: same kind, proto and formats, port 0 (RFC 3264 §6).
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var section = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats)
        section.connection = SDPConnection()
        section.mid = offered.mid
        section.direction = .inactive
        if offered.isRTP { section.codecs = offered.codecs.map { Codec(payloadType: $0.payloadType, name: "", clockRate: 0) } }
        return section
    }
}

extension SessionDescription {
    /// This description with ICE credentials `ufrag`/`pwd` wherever it carries credentials
    /// (session level and each section that has its own), for an ICE restart (RFC 8445 §9)
    /// signaled as a fragment (RFC 8840) rather than a whole description.
    public func replacingICE(ufrag: String, pwd: String) -> SessionDescription {
        var description = self
        if description.iceUfrag != nil || description.media.allSatisfy({ $0.iceUfrag == nil }) {
            description.iceUfrag = ufrag
            description.icePwd = pwd
        }
        for i in description.media.indices where description.media[i].iceUfrag != nil {
            description.media[i].iceUfrag = ufrag
            description.media[i].icePwd = pwd
        }
        return description
    }
}
