import RTCWire
import SRTCProtocol

/// The descriptions WHIP and WHEP need on top of `ServerNegotiation`, without I/O: SDP in, SDP
/// out (docs/ingress.md). A WHIP publisher's offer becomes a `publish` request (its tracks named
/// here); a WHEP player's offer is bridged onto the subscribe transport, where the server offers:
/// the player's offer is answered with the server's subscriber offer's streams and transport, and
/// the server's offer is answered with the player's transport and payload types, so each
/// consumer sends with the payload types and header extension ids the player chose.
enum HTTPMediaNegotiation {
    // MARK: - WHIP

    /// The tracks a WHIP publisher's offer adds: every RTP audio or video section it sends on.
    /// The first audio section is `mic`, the first video `camera_big` (with simulcast, its rids in
    /// the offer's order are `camera_big`, `camera_small`, then `camera_<rid>`); further ones are
    /// `mic_2`, `camera_2`, ….
    /// - Throws: `invalid_parameter` when the offer sends nothing the server could receive.
    static func publishTracks(offer: SessionDescription) throws(SignalError) -> [PublishTrack] {
        var tracks: [PublishTrack] = []
        var audio = 0
        var video = 0
        for section in offer.media where section.isRTP && !section.isRejected && section.effectiveDirection.sends {
            guard let mid = section.mid else { throw SignalError(.invalidParameter, "offer has an m-section without a=mid (RFC 8843 §9.2)") }
            switch section.kind {
            case .audio:
                audio += 1
                tracks.append(PublishTrack(mid: mid, kind: .audio, desc: audio == 1 ? "mic" : "mic_\(audio)"))
            case .video:
                video += 1
                let rids = section.simulcast?.sendRIDs ?? section.rids.filter { $0.direction == .send }.map(\.id)
                let names = ["camera_big", "camera_small"]
                let layers = video == 1 ? rids.enumerated().map { i, rid in
                    SimulcastLayer(rid: rid, desc: i < names.count ? names[i] : "camera_\(rid)")
                } : []
                tracks.append(PublishTrack(mid: mid, kind: .video, desc: video == 1 ? "camera_big" : "camera_\(video)", layers: layers))
            default:
                continue
            }
        }
        guard !tracks.isEmpty else { throw SignalError(.invalidParameter, "offer sends no audio or video (no sendonly or sendrecv m-section)") }
        return tracks
    }

    /// The publisher's first offer with the ICE credentials of its restart (RFC 9725 §4.3.2):
    /// the server's `restart_ice` path takes a whole offer.
    static func offer(_ original: SessionDescription, withICE ufrag: String, _ pwd: String) -> String {
        original.replacingICE(ufrag: ufrag, pwd: pwd).serialize()
    }

    /// The server's side of an ICE restart as a fragment (RFC 9725 §4.3.2): `a=ice-lite` and the
    /// new credentials of `answer` (the candidates do not change).
    static func restartFragment(answer text: String) throws(SignalError) -> ICEFragment {
        let answer = try ServerNegotiation.parse(text, "answer")
        guard let section = answer.media.first(where: { !$0.isRejected }), let ufrag = answer.iceUfrag(of: section),
              let pwd = answer.icePwd(of: section) else { throw SignalError(.internalError, "the restart answer has no ICE credentials") }
        return ICEFragment(iceLite: true, iceUfrag: ufrag, icePwd: pwd)
    }

    // MARK: - WHEP

    /// A section of the player's offer that receives (`recvonly` or `sendrecv`) and the server's
    /// subscriber-offer section that will feed it.
    struct Pair: Hashable, Sendable {
        var playerMid: String
        var serverMid: String
    }

    /// The player's receiving sections of `kind`, in order.
    static func receivingMids(_ offer: SessionDescription, kind: MediaKind) -> [String] {
        offer.media.filter { $0.kind == kind && $0.isRTP && !$0.isRejected && $0.effectiveDirection.reversed.sends }.compactMap(\.mid)
    }

    /// Whether the player's section `mid` offers a codec that matches `codec` (the track's).
    static func offers(_ offer: SessionDescription, mid: String, codec: Codec) -> Bool {
        guard let section = offer.media(mid: mid) else { return false }
        let only = MediaCapabilities(audioCodecs: [codec], videoCodecs: [codec], headerExtensions: [])
        return only.negotiate(section.codecs, kind: section.kind).contains { !$0.isRTX }
    }

    /// The answer to the player: its sections, `sendonly` where paired (with the stream of the
    /// server's section: SSRC, cname, msid) or waiting, `inactive` elsewhere; the server's
    /// subscribe transport (credentials, fingerprint, candidates of `serverOffer`),
    /// `a=setup:passive`.
    ///
    /// A **waiting** section (`waiting`, player mids) receives a track the target publishes
    /// later (docs/ingress.md, "Tracks published later"): it is answered `sendonly` with every
    /// codec of its kind the server forwards and an `a=msid` of `streamID` but no SSRC, so the
    /// player takes the stream when its packets come (an unsignaled SSRC, routed by payload type,
    /// RFC 8843 §9.2) without a new offer. For that the answer leaves out the `mid` header
    /// extension: the consumer would write the server's mid, which need not be the player's.
    static func playerAnswer(playerOffer: SessionDescription, serverOffer: SessionDescription, pairs: [Pair], waiting: [String] = [],
                             streamID: String? = nil, sessionID: String) throws(SignalError) -> SessionDescription {
        guard let first = serverOffer.media.first(where: { !$0.isRejected }), let ufrag = serverOffer.iceUfrag(of: first),
              let pwd = serverOffer.icePwd(of: first), let fingerprint = serverOffer.fingerprints(of: first).first else {
            throw SignalError(.internalError, "the subscriber offer has no transport")
        }
        let transport = TransportParameters(iceUfrag: ufrag, icePwd: pwd, fingerprint: fingerprint, setup: .passive,
                                            candidates: first.candidates, endOfCandidates: true)
        var audio: [Codec] = []
        var video: [Codec] = []
        for pair in pairs {
            guard let codec = serverOffer.media(mid: pair.serverMid)?.codecs.first(where: { !$0.isRTX }) else { continue }
            if playerOffer.media(mid: pair.playerMid)?.kind == .audio { audio.append(codec) } else { video.append(codec) }
        }
        for mid in waiting {
            if playerOffer.media(mid: mid)?.kind == .audio { audio += ServerMedia.capabilities.audioCodecs } else { video += ServerMedia.capabilities.videoCodecs }
        }
        let paired = Set(pairs.map(\.playerMid))
        let sending = paired.union(waiting)
        let extensions = ServerMedia.capabilities.headerExtensions.filter { $0 != RTPHeaderExtensionURI.mid }
        let capabilities = MediaCapabilities(audioCodecs: audio, videoCodecs: video, headerExtensions: extensions)
        var answer = playerOffer.answer(AnswerOptions(
            transport: transport, capabilities: capabilities, iceLite: true, sessionID: sessionID, acceptDataChannel: false,
            direction: { sending.contains($0.mid ?? "") ? .sendonly : .inactive }))
        for pair in pairs {
            guard let i = answer.media.firstIndex(where: { $0.mid == pair.playerMid && !$0.isRejected }),
                  let server = serverOffer.media(mid: pair.serverMid), let ssrc = server.ssrcList.first else { continue }
            // One codec, no RTX: the SFU retransmits on the primary SSRC.
            guard let codec = answer.media[i].codecs.first(where: { !$0.isRTX }) else { continue }
            answer.media[i].codecs = [codec]
            answer.media[i].formats = [String(codec.payloadType)]
            let cname = server.ssrcs.first { $0.name == "cname" }?.value ?? "srtc"
            let msid = server.msid.first
            answer.media[i].addSendStream(ssrc: ssrc, cname: cname, streamID: msid?.streamID ?? cname, trackID: msid?.trackID ?? pair.serverMid)
        }
        for mid in waiting where !paired.contains(mid) {
            guard let i = answer.media.firstIndex(where: { $0.mid == mid && !$0.isRejected }) else { continue }
            let codecs = answer.media[i].codecs.filter { !$0.isRTX }
            answer.media[i].codecs = codecs
            answer.media[i].formats = codecs.map { String($0.payloadType) }
            answer.media[i].msid = [MediaStreamID(streamID: streamID ?? "srtc", trackID: "\(streamID ?? "srtc")-\(mid)")]
        }
        return answer
    }

    /// The player's section that waits for a track of `kind` in `codec`, if one does.
    static func waitingMid(_ waiting: [String], in playerOffer: SessionDescription, kind: MediaKind, codec: Codec) -> String? {
        waiting.first { mid in playerOffer.media(mid: mid)?.kind == kind && offers(playerOffer, mid: mid, codec: codec) }
    }

    /// The answer to the server's subscriber offer on the player's behalf: the player's ICE
    /// credentials and fingerprint (`a=setup:active`: the player is the DTLS client, as it
    /// received `passive`), and in each paired section the codec and header extensions of the
    /// player's answer, so the consumer uses the player's payload type and extension ids.
    static func subscriberAnswer(playerOffer: SessionDescription, playerAnswer: SessionDescription, serverOffer: SessionDescription,
                                 pairs: [Pair], sessionID: String) throws(SignalError) -> String {
        let (ice, _, _) = try SDPConversions.remoteTransport(of: playerOffer)
        guard let first = playerOffer.media.first(where: { !$0.isRejected }),
              let fingerprint = playerOffer.fingerprints(of: first).first(where: { $0.algorithm.lowercased() == "sha-256" }) else {
            throw SignalError(.invalidParameter, "offer lacks a sha-256 a=fingerprint")
        }
        let transport = TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd, fingerprint: fingerprint, setup: .active)
        var answer = serverOffer.answer(AnswerOptions(transport: transport, capabilities: ServerMedia.capabilities, sessionID: sessionID,
                                                      acceptDataChannel: true))
        for pair in pairs {
            guard let i = answer.media.firstIndex(where: { $0.mid == pair.serverMid && !$0.isRejected }),
                  let player = playerAnswer.media(mid: pair.playerMid), !player.isRejected else { continue }
            // The player's payload type of the server's codec: a waiting section was answered
            // with every codec of its kind.
            guard let serverCodec = serverOffer.media(mid: pair.serverMid)?.codecs.first(where: { !$0.isRTX }) else { continue }
            let only = MediaCapabilities(audioCodecs: [serverCodec], videoCodecs: [serverCodec], headerExtensions: [])
            guard let codec = only.negotiate(player.codecs, kind: player.kind).first(where: { !$0.isRTX }) else { continue }
            answer.media[i].codecs = [codec]
            answer.media[i].formats = [String(codec.payloadType)]
            answer.media[i].extensions = player.extensions
            answer.media[i].direction = .recvonly
        }
        return answer.serialize()
    }

    /// The player's offer with the ICE credentials of its restart.
    static func playerOffer(_ offer: SessionDescription, withICE ufrag: String, _ pwd: String) throws(SignalError) -> SessionDescription {
        try ServerNegotiation.parse(Self.offer(offer, withICE: ufrag, pwd), "offer")
    }
}
