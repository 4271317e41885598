import Synchronization
import SRTCProtocol
import SRTCTestSupport
@testable import SRTCServer

/// A `ChannelRoom` with no sockets: a manual clock, fake media, recording connections and a
/// recording observer.
struct RoomHarness {
    let clock = ManualClock()
    let media = FakeRoomMedia()
    let observer = RecordingObserver()
    let room: ChannelRoom
    static let key = ChannelKey(appId: "app", name: "room")

    init(limits: ChannelLimits = ChannelLimits()) {
        room = ChannelRoom(key: Self.key, limits: limits, media: media, observer: observer, clock: clock)
    }

    /// Token claims for `uid`, valid for `seconds` from the clock's now.
    func claims(_ uid: String, validFor seconds: Int64 = 3600, grant: ChannelGrant = ChannelGrant(channel: "room")) -> TokenClaims {
        let now = clock.now() / 1000
        return TokenClaims(iss: "app", sub: uid, iat: now, nbf: now, exp: now + seconds, jti: "J" + uid, grant: grant)
    }

    /// Joins `uid` on a new recording connection (or resumes `sessionId`).
    func join(_ uid: String, validFor seconds: Int64 = 3600, resuming sessionId: String? = nil, videoCodecs: [String]? = nil,
              on connection: RecordingConnection = RecordingConnection()) async throws -> Session {
        let result = await room.join(JoinRequest(token: "", sessionId: sessionId, videoCodecs: videoCodecs), claims: claims(uid, validFor: seconds),
                                     connection: connection, requestId: 1)
        let response = try result.get()
        return Session(room: room, uid: uid, sessionId: response.sessionId, connection: connection, joined: response)
    }

    /// Returns once everything posted to the room so far has been applied.
    func settled() async {
        await room.perform(ifClosed: ()) { _ in }
    }

    /// One joined session.
    final class Session: Sendable {
        let room: ChannelRoom
        let uid: String
        let sessionId: String
        let connection: RecordingConnection
        let joined: JoinResponse
        private let nextId = Atomic<Int>(2)

        init(room: ChannelRoom, uid: String, sessionId: String, connection: RecordingConnection, joined: JoinResponse) {
            self.room = room
            self.uid = uid
            self.sessionId = sessionId
            self.connection = connection
            self.joined = joined
        }

        /// Sends one request and returns the room's answer (also recorded on the connection).
        @discardableResult
        func request(_ body: ClientRequest.Body) async -> Result<ResponseData, SignalError> {
            let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
            return await room.handle(ClientRequest(id: id, body), uid: uid, sessionId: sessionId, connection: connection)
        }

        /// Publishes tracks (`a` audio, `v` video mids) and returns their server ids, by mid.
        /// Publishes a track per mid (`a…` audio, else video) with `sdp` (a real one is answered as
        /// it is, so its codecs become the tracks').
        func publish(_ mids: [String], sdp: String = "offer") async throws -> [String: String] {
            let tracks = mids.map { PublishTrack(mid: $0, kind: $0.hasPrefix("a") ? .audio : .video, desc: $0.hasPrefix("a") ? "mic" : "camera") }
            guard case .answer(let answer) = try await request(.publish(PublishRequest(sdp: sdp, tracks: tracks))).get() else {
                throw SignalError(.internalError, "publish answered no SDP")
            }
            return Dictionary(uniqueKeysWithValues: zip(mids, answer.tracks.map(\.id)))
        }
    }
}

/// The room's lifecycle notices (what webhooks and the manager see), as short strings.
final class RecordingObserver: RoomObserver {
    private let log = Mutex<[String]>([])
    var entries: [String] { log.withLock { $0 } }
    private func add(_ s: String) { log.withLock { $0.append(s) } }

    func userJoined(room: ChannelKey, uid: String) { add("joined \(uid)") }
    func userLeft(room: ChannelKey, uid: String, reason: DisconnectReason) { add("left \(uid) \(reason.rawValue)") }
    func sessionResumed(room: ChannelKey, uid: String) { add("resumed \(uid)") }
    func trackPublished(room: ChannelKey, uid: String, track: TrackInfo) { add("published \(uid) \(track.desc)") }
    func trackUnpublished(room: ChannelKey, uid: String, track: TrackInfo) { add("unpublished \(uid) \(track.desc)") }
    func roomBecameEmpty(_ room: ChannelKey) { add("empty") }
}
