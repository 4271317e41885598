import RTCCrypto
import RTCWire
import SRTCProtocol
import Synchronization

/// One WHIP or WHEP session (docs/ingress.md): the HTTP resource of a participant that joined
/// without signaling. It is that participant's `SignalConnection`, so the room treats it like
/// any client's: the room's responses and events arrive here and are dropped, except a WHEP
/// session's subscriber offers, which `HTTPMediaSessions` answers on the player's behalf; the
/// room closing the connection (kick, the same uid joining again, the channel closing, the
/// token expiring) ends the session and frees its resource.
final class HTTPMediaSession: SignalConnection {
    // MARK: - Types

    enum Kind: String, Sendable {
        /// A publisher (RFC 9725).
        case whip
        /// A player (draft-ietf-wish-whep).
        case whep
    }

    struct State {
        /// Set once joined.
        var room: ChannelRoom?
        var sessionId: String?
        /// The entity tag of the current ICE session (RFC 9725 §4.3.1): a new one after each restart.
        var etag: String
        /// The client's offer, with the credentials of its latest ICE restart.
        var offer: SessionDescription?
        /// WHEP: the server's latest subscriber offer, and how the player's sections pair with it.
        var serverOffer: SessionDescriptionMessage?
        var pairs: [HTTPMediaNegotiation.Pair] = []
        /// WHEP: the user played (nil for a composite, which does not follow later tracks).
        var target: String?
        /// WHEP: the player's sections answered for a track `target` publishes later, and the
        /// track each pair plays (player mid → track id).
        var waiting: [String] = []
        var pairedTracks: [String: String] = [:]
        /// WHEP: the answer the player has (its codecs and extension ids feed later subscriber answers).
        var playerAnswer: SessionDescription?
        /// WHEP: the last follow-up of the target's tracks; the next one runs after it.
        var following: Task<Void, Never>?
        /// Ended: the room closed the connection, or the client deleted the resource.
        var ended = false
        /// The next request id on this connection (the room echoes it in its responses).
        var nextRequestId = 1
    }

    // MARK: - Properties

    /// The resource's id: 128 random bits, so the URL cannot be guessed.
    let id: String
    let kind: Kind
    let key: ChannelKey
    let uid: String
    /// The resource's path (the `Location` of the `201`).
    let location: String
    let state: Mutex<State>
    private let sessions: HTTPMediaSessions

    init(kind: Kind, key: ChannelKey, uid: String, endpointPath: String, sessions: HTTPMediaSessions) {
        id = (kind == .whip ? "WHIP_" : "WHEP_") + SecureRandom.string(count: 22)
        self.kind = kind
        self.key = key
        self.uid = uid
        location = endpointPath + "/" + id
        self.sessions = sessions
        state = Mutex(State(etag: Self.newETag()))
    }

    /// A strong entity tag, quoted (RFC 9110 §8.8.3).
    static func newETag() -> String { "\"" + SecureRandom.string(count: 16) + "\"" }

    /// The next request id, for a request this session makes to its room.
    func requestId() -> Int {
        state.withLock { s in
            defer { s.nextRequestId += 1 }
            return s.nextRequestId
        }
    }

    // MARK: - SignalConnection

    /// Nothing else tells that the client is gone without a `DELETE`.
    var endsWhenMediaFails: Bool { true }

    /// Responses and events of the room. Only a WHEP session's matter: a `subscriber_offer` is
    /// kept for the answer the session makes next (the room sends it inside the job that made
    /// it, so a later job of the same room finds it here); the played user's `track_added`,
    /// `track_removed`, `user_joined` (with tracks) and `user_left` start or stop playing a track in the
    /// player's waiting sections (docs/ingress.md, "Tracks published later").
    func send(text: String) {
        guard kind == .whep else { return }
        if text.contains("\"subscriber_offer\"") {
            guard case .event(.subscriberOffer(let offer))? = try? SignalCodec.decodeServerMessage(text) else { return }
            state.withLock { $0.serverOffer = offer }
            return
        }
        guard text.contains("\"track_added\"") || text.contains("\"track_removed\"") || text.contains("\"user_joined\"")
                || text.contains("\"user_left\"") else { return }
        guard let target = state.withLock(\.target), case .event(let event)? = try? SignalCodec.decodeServerMessage(text) else { return }
        switch event {
        case .trackAdded(let e) where e.uid == target: sessions.follow(self, added: [e.track])
        case .userJoined(let user) where user.uid == target && !user.tracks.isEmpty: sessions.follow(self, added: user.tracks)
        case .trackRemoved(let e) where e.uid == target: sessions.follow(self, removed: e.track.id)
        case .userLeft(let e) where e.uid == target: sessions.follow(self, removed: nil)
        default: break
        }
    }

    /// The room ended the session.
    func close(code: UInt16, reason: String) {
        state.withLock { $0.ended = true }
        sessions.forget(self)
    }
}
