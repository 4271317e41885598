import RTCNet
import RTCTransport
import RTCWire

/// The SDP this client writes and reads (RFC 8829 JSEP over RTCWire's model):
/// the publish offer (client offers, `sendonly`, `a=setup:actpass`), the reading of the server's
/// answers and `subscriber_offer`s, and the subscribe answer (`recvonly`, `a=setup:active`).
enum SDPNegotiation {
    // MARK: - Types

    /// One m-section of the publish transport.
    struct PublishSection: Sendable, Equatable {
        var mid: String
        var kind: TrackKind
        /// `a=msid` stream and track labels (the track label is local; the server assigns ids).
        var streamLabel: String
        var trackLabel: String
        /// SSRCs of the streams, best layer first.
        var ssrcs: [UInt32]
        /// Simulcast rids, best first (`h`, `l`); empty for one stream.
        var rids: [String]
        /// False once unpublished: the section stays (mids are never reused) as `inactive`.
        var active: Bool = true
    }

    /// What a remote description says about one m-section.
    struct RemoteSection: Sendable, Equatable {
        var mid: String
        var kind: TrackKind?
        /// The remote side's direction.
        var direction: Direction
        var rejected: Bool
        /// The forwarded codec's payload type (Opus or VP8), when negotiated.
        var payloadType: UInt8?
        var midID: UInt8?
        var ridID: UInt8?
        var audioLevelID: UInt8?
        var ssrcs: [UInt32]
        /// `a=msid` track id: the server's track id in a `subscriber_offer`.
        var trackID: String?
        var streamID: String?
    }

    /// The transport half of a remote description (shared by all sections with BUNDLE).
    struct RemoteDescription: Sendable, Equatable {
        var iceUfrag: String
        var icePwd: String
        var fingerprint: DTLSFingerprint
        var setup: SetupRole?
        var candidates: [ICECandidate]
        var iceLite: Bool
        var sections: [RemoteSection]
        var sessionVersion: UInt64
        /// The `a=sctp-port` of an offered data channel section (RFC 8841), nil without one.
        var sctpPort: UInt16? = nil

        func section(mid: String) -> RemoteSection? { sections.first { $0.mid == mid } }
    }

    // MARK: - Codecs and extensions

    /// Payload types this client offers.
    static let opusPayloadType: UInt8 = 111
    static let vp8PayloadType: UInt8 = 96

    /// The RTCP feedback this client uses for video: NACK, PLI, FIR (it answers them as a sender and sends them as a receiver).
    static let videoFeedback = [RTCPFeedback(type: "nack"), RTCPFeedback(type: "nack", parameter: "pli"),
                                RTCPFeedback(type: "ccm", parameter: "fir")]

    static func codecs(for kind: TrackKind) -> [Codec] {
        switch kind {
        case .audio: return [Codec(payloadType: opusPayloadType, name: "opus", clockRate: 48_000, channels: 2,
                                   formatParameters: "minptime=10;useinbandfec=1")]
        case .video: return [Codec(payloadType: vp8PayloadType, name: "VP8", clockRate: 90_000, feedback: videoFeedback)]
        }
    }

    /// The header extensions offered when publishing (Chrome's ids): the audio level for audio,
    /// `mid` for both, `rid` for video (simulcast layers are told apart by it).
    static func publishExtensions(for kind: TrackKind) -> [ExtMap] {
        switch kind {
        case .audio: return [ExtMap(id: 1, uri: RTPHeaderExtensionURI.audioLevel), ExtMap(id: 4, uri: RTPHeaderExtensionURI.mid)]
        case .video: return [ExtMap(id: 4, uri: RTPHeaderExtensionURI.mid), ExtMap(id: 10, uri: RTPHeaderExtensionURI.rid)]
        }
    }

    /// What this client accepts on the subscribe transport.
    static let receiveCapabilities = MediaCapabilities(
        audioCodecs: codecs(for: .audio), videoCodecs: codecs(for: .video),
        headerExtensions: [RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.audioLevel])

    // MARK: - Publish offer

    /// The publish transport's offer: one `sendonly` section per track (BUNDLE, rtcp-mux),
    /// `a=setup:actpass`, ICE credentials and the DTLS fingerprint; no candidates (the server is
    /// ICE-lite and learns this client's address from its checks).
    static func publishOffer(sections: [PublishSection], ice: ICECredentials, fingerprint: DTLSFingerprint,
                             sessionID: String, version: UInt64, cname: String) -> String {
        let media = sections.map { s -> MediaDescription in
            var m = MediaDescription(kind: s.kind == .audio ? .audio : .video, mid: s.mid, direction: s.active ? .sendonly : .inactive,
                                     codecs: codecs(for: s.kind), extensions: publishExtensions(for: s.kind))
            guard s.active else { return m }
            if s.rids.isEmpty, let ssrc = s.ssrcs.first {
                m.addSendStream(ssrc: ssrc, cname: cname, streamID: s.streamLabel, trackID: s.trackLabel)
            } else {
                m.msid = [MediaStreamID(streamID: s.streamLabel, trackID: s.trackLabel)]
                m.setSendSimulcast(rids: s.rids)
            }
            return m
        }
        let transport = TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                                            fingerprint: Fingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes),
                                            setup: .actpass, iceOptions: ["trickle"])
        var offer = SessionDescription.offer(sessionID: sessionID, transport: transport, media: media)
        offer.origin.sessionVersion = version
        return offer.serialize()
    }

    // MARK: - Reading remote descriptions

    /// Reads an answer or offer from the server.
    /// - Throws: `SRTCError.mediaFailed` when it does not parse or lacks ICE credentials or a fingerprint.
    static func describe(_ sdp: String) throws(SRTCError) -> RemoteDescription {
        let description: SessionDescription
        do {
            description = try SessionDescription(parsing: sdp)
        } catch {
            throw .mediaFailed("unreadable SDP: \(error)")
        }
        let first = description.media.first { !$0.isRejected } ?? description.media.first
        guard let section = first, let ufrag = description.iceUfrag(of: section), let pwd = description.icePwd(of: section),
              let fingerprint = description.fingerprints(of: section).first else {
            throw .mediaFailed("SDP without ICE credentials or DTLS fingerprint")
        }
        var candidates: [ICECandidate] = []
        for m in description.media {
            for c in m.candidates where c.transport.lowercased() == "udp" && c.component == 1 {
                guard let address = SocketAddress(ip: c.address, port: c.port) else { continue }
                let candidate = ICECandidate(foundation: c.foundation, priority: c.priority, address: address, type: c.kind.rawValue)
                if !candidates.contains(candidate) { candidates.append(candidate) }
            }
        }
        return RemoteDescription(
            iceUfrag: ufrag, icePwd: pwd, fingerprint: DTLSFingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes),
            setup: description.setup(of: section), candidates: candidates, iceLite: description.iceLite,
            sections: description.media.compactMap(remoteSection), sessionVersion: description.origin.sessionVersion,
            sctpPort: description.media.first { $0.kind == .application && !$0.isRejected }.map { $0.sctpPort ?? SCTPAssociation.defaultPort })
    }

    private static func remoteSection(_ m: MediaDescription) -> RemoteSection? {
        guard let mid = m.mid else { return nil }
        let kind: TrackKind? = m.kind == .audio ? .audio : m.kind == .video ? .video : nil
        let wanted = kind == .audio ? "opus" : "vp8"
        let codec = m.codecs.first { $0.name.lowercased() == wanted }
        func id(_ uri: String) -> UInt8? { m.extensionID(uri: uri).flatMap { $0 <= 255 ? UInt8($0) : nil } }
        let msid = m.msid.first ?? m.ssrcs.first { $0.name == "msid" }.flatMap { attribute -> MediaStreamID? in
            guard let parts = attribute.value?.split(separator: " "), let stream = parts.first else { return nil }
            return MediaStreamID(streamID: String(stream), trackID: parts.count > 1 ? String(parts[1]) : nil)
        }
        return RemoteSection(mid: mid, kind: kind, direction: m.effectiveDirection, rejected: m.isRejected,
                             payloadType: codec?.payloadType, midID: id(RTPHeaderExtensionURI.mid),
                             ridID: id(RTPHeaderExtensionURI.rid), audioLevelID: id(RTPHeaderExtensionURI.audioLevel),
                             ssrcs: m.ssrcList, trackID: msid?.trackID, streamID: msid?.streamID)
    }

    // MARK: - Subscribe answer

    /// The answer to a `subscriber_offer`: Opus and VP8 (NACK, PLI, FIR) only, `recvonly` where
    /// the server sends, `a=setup:active` (this client is the DTLS client) unless the offer
    /// insists on being active itself.
    /// With `dataChannels` the offer's application section is accepted (docs/protocol.md, "Data channels").
    static func subscribeAnswer(to sdp: String, ice: ICECredentials, fingerprint: DTLSFingerprint, sessionID: String,
                                dataChannels: Bool = false) throws(SRTCError) -> String {
        let offer: SessionDescription
        do {
            offer = try SessionDescription(parsing: sdp)
        } catch {
            throw .mediaFailed("unreadable subscriber offer: \(error)")
        }
        let offeredSetup = offer.media.first.flatMap { offer.setup(of: $0) }
        let transport = TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                                            fingerprint: Fingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes),
                                            setup: offeredSetup == .active ? .passive : .active)
        let options = AnswerOptions(transport: transport, capabilities: receiveCapabilities, sessionID: sessionID,
                                    acceptDataChannel: dataChannels)
        return offer.answer(options).serialize()
    }

    /// The DTLS role this client takes given the remote side's `a=setup` (RFC 5763 §5).
    static func localDTLSRole(remoteSetup: SetupRole?) -> DTLSEndpoint.Role {
        remoteSetup == .active ? .server : .client
    }
}
