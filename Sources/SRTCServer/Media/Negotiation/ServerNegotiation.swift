import RTCTransport
import RTCWire
import SFU
import SRTCProtocol

/// The server's half of one participant's SDP negotiation, without I/O: SDP in, SFU parameters
/// and SDP out. `SFUParticipantMedia` performs what its methods return.
///
/// Two transports (docs/protocol.md): on the publish transport the client offers and the server
/// answers, receiving every section the client sends on; on the subscribe transport the server
/// offers one `sendonly` m-section per subscription (`ServerNegotiation+Subscribe.swift`) and the
/// client answers. What is random (ICE credentials, SSRCs, the session id) comes in as arguments,
/// so equal inputs give equal descriptions and the type is tested by tables of them.
struct ServerNegotiation: Sendable {
    // MARK: - Types

    /// The client's side of a transport, and the DTLS role the server takes on it.
    struct RemoteTransport: Hashable, Sendable {
        var ice: ICECredentials
        var fingerprint: DTLSFingerprint
        var dtlsRole: DTLSEndpoint.Role
    }

    /// One published track for the SFU to receive.
    struct ProducerPlan: Hashable, Sendable {
        var trackId: String
        var kind: MediaKind
        var parameters: RTPParameters
        var muted: Bool
    }

    /// The answer to a publish offer and what it asks of the SFU.
    struct PublishAnswer: Hashable, Sendable {
        var sdp: String
        /// Create the publish transport (the first offer only).
        var transport: RemoteTransport?
        var producers: [ProducerPlan]
    }

    // MARK: - Properties

    /// The server's certificate fingerprint and candidates, in every description.
    let fingerprint: Fingerprint
    let candidates: [Candidate]
    /// The `o=` session id of every description this participant gets; the version counts the
    /// descriptions of each transport (RFC 3264 §5, §8).
    let sessionID: String
    /// Which video codec a published section is answered with (`--video-codecs`).
    let videoCodecs: VideoCodecPreference
    private(set) var publishICE: ICECredentials
    /// The client's credentials on the publish transport, once it exists.
    private(set) var publishRemoteICE: ICECredentials?
    private var publishVersion: UInt64 = 1
    /// Audio sections whose frames are end-to-end encrypted (`PublishTrack.e2ee`): answered
    /// without RED. A browser builds the RED payload before its encoded transform (libwebrtc's
    /// Opus encoder makes it), so the whole RED payload is encrypted and the SFU could not read
    /// its blocks: it dropped every packet (docs/e2ee.md).
    private var encryptedAudioMids: Set<String> = []
    // The subscribe side's state, changed only by the methods of `ServerNegotiation+Subscribe.swift`.
    var subscribeICE: ICECredentials
    var subscribeRemoteICE: ICECredentials?
    var subscribeVersion: UInt64 = 1
    /// The subscribe transport's m-sections, in mid order.
    var slots: [Slot] = []
    /// The revision of the latest subscriber offer.
    var revision = 0
    /// The subscribe transport carries data channels: its offers start with an application
    /// section (`dataChannelMid`), set once by `offerDataChannels`.
    var dataChannels = false
    static let dataChannelMid = "data"

    init(fingerprint: Fingerprint, candidates: [Candidate], sessionID: String, publishICE: ICECredentials, subscribeICE: ICECredentials,
         videoCodecs: VideoCodecPreference = .offerOrder) {
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.sessionID = sessionID
        self.videoCodecs = videoCodecs
        self.publishICE = publishICE
        self.subscribeICE = subscribeICE
    }

    func transportParameters(_ ice: ICECredentials, setup: SetupRole) -> TransportParameters {
        TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd, fingerprint: fingerprint, setup: setup,
                            candidates: candidates, endOfCandidates: true)
    }

    // MARK: - Publish transport

    /// Answers an offer that adds `tracks` (server ids in `trackIds`, by mid). The first offer also
    /// creates the transport; a later one must keep the client's ICE credentials (a change is an
    /// ICE restart, sent with `restart_ice`).
    mutating func answerPublish(offer text: String, tracks: [PublishTrack], trackIds: [String: String],
                                transportExists: Bool) throws(SignalError) -> PublishAnswer {
        let offer = try Self.parse(text, "offer")
        for t in tracks {
            guard let section = offer.media(mid: t.mid), !section.isRejected else {
                throw SignalError(.invalidParameter, "offer has no active m-section with mid \(t.mid)")
            }
            guard section.kind == (t.kind == .audio ? .audio : .video) else {
                throw SignalError(.invalidParameter, "m-section \(t.mid) is not \(t.kind.rawValue)")
            }
        }
        let remote = try SDPConversions.remoteTransport(of: offer)
        for t in tracks where t.kind == .audio && t.e2ee == true { encryptedAudioMids.insert(t.mid) }
        let answer = publishAnswer(to: offer, setup: remote.2)
        if transportExists, let known = publishRemoteICE, known != remote.0 {
            throw SignalError(.invalidParameter, "the offer changes ICE credentials: send it with restart_ice")
        }
        var transport: RemoteTransport?
        if !transportExists {
            publishRemoteICE = remote.0
            transport = RemoteTransport(ice: remote.0, fingerprint: remote.1, dtlsRole: Self.answererRole(offered: remote.2))
        }
        var producers: [ProducerPlan] = []
        for t in tracks {
            guard let trackId = trackIds[t.mid], let offered = offer.media(mid: t.mid), let answered = answer.media(mid: t.mid),
                  !answered.isRejected else {
                if t.kind == .video, !videoCodecs.isOfferOrder {
                    throw SignalError(.invalidParameter, "m-section \(t.mid) offers none of the video codecs the server takes from publishers: \(videoCodecs.names.joined(separator: ", "))")
                }
                throw SignalError(.invalidParameter, "m-section \(t.mid) offers no codec the server forwards (Opus, VP8, VP9 profile 0, AV1 profile 0, H.264 packetization-mode 1 Constrained Baseline)")
            }
            producers.append(ProducerPlan(trackId: trackId, kind: answered.kind,
                                          parameters: SDPConversions.producerParameters(offer: offered, answer: answered, track: t),
                                          muted: t.muted))
        }
        publishVersion += 1
        return PublishAnswer(sdp: answer.serialize(), transport: transport, producers: producers)
    }

    /// Answers a renegotiation that adds no track (after an unpublish: the section goes inactive).
    mutating func answerPublishRenegotiation(offer text: String) throws(SignalError) -> String {
        let offer = try Self.parse(text, "offer")
        let (_, _, setup) = try SDPConversions.remoteTransport(of: offer)
        defer { publishVersion += 1 }
        return publishAnswer(to: offer, setup: setup).serialize()
    }

    /// Answers an ICE-restart offer with the server's new credentials `newICE`; returns the
    /// answer and the client's new credentials, for the transport's restart.
    mutating func answerPublishRestart(offer text: String, newICE: ICECredentials) throws(SignalError) -> (sdp: String, remoteICE: ICECredentials) {
        let offer = try Self.parse(text, "offer")
        let (remoteICE, _, setup) = try SDPConversions.remoteTransport(of: offer)
        guard remoteICE != publishRemoteICE else { throw SignalError(.invalidParameter, "an ICE restart offer needs new ice-ufrag and ice-pwd") }
        publishICE = newICE
        publishRemoteICE = remoteICE
        defer { publishVersion += 1 }
        return (publishAnswer(to: offer, setup: setup).serialize(), remoteICE)
    }

    /// The answer on the publish transport: the server receives what the client sends, video in
    /// the one codec `videoCodecs` picks (a section with none of its codecs is rejected); RFC 3264
    /// §6.1: a section the client no longer sends on (unpublished) is answered inactive.
    private func publishAnswer(to offer: SessionDescription, setup: SetupRole?) -> SessionDescription {
        let role: SetupRole = Self.answererRole(offered: setup) == .server ? .passive : .active
        var answer = offer.answer(AnswerOptions(
            transport: transportParameters(publishICE, setup: role), capabilities: videoCodecs.narrowing(ServerMedia.capabilities), iceLite: true,
            sessionID: sessionID, acceptDataChannel: false, direction: { $0.effectiveDirection.sends ? .recvonly : .inactive }))
        answer.origin.sessionVersion = publishVersion
        ServerMedia.keepOneVideoCodec(&answer, preference: videoCodecs)
        ServerMedia.preferRED(&answer)
        for i in answer.media.indices where answer.media[i].mid.map(encryptedAudioMids.contains) == true {
            answer.media[i].codecs.removeAll(where: \.isRED)
            answer.media[i].formats = answer.media[i].codecs.map { String($0.payloadType) }
        }
        return answer
    }

    /// The client offers actpass (or active): the server answers passive and is the DTLS server;
    /// to `passive` it answers active and is the client (RFC 5763 §5).
    static func answererRole(offered: SetupRole?) -> DTLSEndpoint.Role {
        offered == .passive ? .client : .server
    }

    static func parse(_ text: String, _ what: String) throws(SignalError) -> SessionDescription {
        do { return try SessionDescription(parsing: text) } catch { throw SignalError(.invalidParameter, "\(what) is not valid SDP: \(error)") }
    }
}
