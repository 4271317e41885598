import Foundation
import RTCNet
import RTCWire
import SRTCProtocol
import Synchronization

/// The WHIP and WHEP sessions of this node, and what each does in its channel (docs/ingress.md).
/// A session is another front door to the paths every client takes: it joins with the token's
/// uid (`ChannelManager.join`: modules' admission, join limits, `user_joined`, webhooks), a WHIP
/// publisher publishes its offer (`publish`: modules' publish rules and holds, `track_added`), a
/// WHEP player subscribes (`subscribe`: the SFU's consumers and layer choice) and its offer is
/// bridged onto the server-offered subscribe transport (`HTTPMediaNegotiation`).
final class HTTPMediaSessions: Sendable {
    let manager: ChannelManager
    let apps: AppStore
    let limits: ChannelLimits
    let metrics: Metrics
    let turn: TURNCredentialIssuer?
    /// Where channels run, on a cluster: a session for a channel of another node is redirected there.
    let cluster: ClusterNode?
    private let sessions = Mutex<[String: HTTPMediaSession]>([:])

    init(manager: ChannelManager, apps: AppStore, limits: ChannelLimits, metrics: Metrics, turn: TURNCredentialIssuer?, cluster: ClusterNode?) {
        self.manager = manager
        self.apps = apps
        self.limits = limits
        self.metrics = metrics
        self.turn = turn
        self.cluster = cluster
    }

    // MARK: - Registry

    /// The live session `id` of `key`'s channel, if any.
    func session(id: String, channel: String) -> HTTPMediaSession? {
        sessions.withLock { $0[id] }.flatMap { $0.key.name == channel && !$0.state.withLock(\.ended) ? $0 : nil }
    }

    /// Live sessions (tests, metrics).
    var count: Int { sessions.withLock { $0.count } }

    func forget(_ session: HTTPMediaSession) {
        sessions.withLock { if $0[session.id] === session { $0[session.id] = nil } }
    }

    // MARK: - Authorization

    /// The claims of a bearer token for `channel`.
    /// - Returns: the token's error (401) when it does not verify; `permission_denied` (403) when
    ///   its grant names another channel.
    func authorize(bearer token: String?, channel: String, now: Int64) -> Result<TokenClaims, SignalError> {
        guard let token, !token.isEmpty else {
            metrics.recordAuthFailure(cause: APIErrorCode.invalidToken.name)
            return .failure(SignalError(.invalidToken, "missing Authorization: Bearer <channel token>"))
        }
        let claims: TokenClaims
        do {
            claims = try AccessToken.verify(token, now: now, leeway: limits.tokenLeewaySeconds) { [apps] in apps.app(id: $0)?.appKey }
        } catch {
            metrics.recordAuthFailure(cause: error.code.name)
            return .failure(SignalError(error.code, "token refused: \(error)"))
        }
        guard let grant = claims.grant, Identifier.isValid(grant.channel), Identifier.isValid(claims.sub) else {
            return .failure(SignalError(.invalidToken, "token has no valid channel grant"))
        }
        guard grant.channel == channel else {
            return .failure(SignalError(.permissionDenied, "the token is for channel \(grant.channel), not \(channel)"))
        }
        return .success(claims)
    }

    /// The URL of the node that runs `key`'s channel when it is another node (a cluster), else `nil`.
    func ownerURL(of key: ChannelKey) async -> Result<String?, SignalError> {
        guard let cluster else { return .success(nil) }
        do {
            let owner = try await cluster.directory.owner(of: key)
            return .success(owner.id == cluster.registry.nodeId ? nil : owner.httpURL)
        } catch {
            return .failure(SignalError(.internalError, "no node can take the channel: \(error)"))
        }
    }

    // MARK: - Sessions

    /// Joins `claims.sub` to its channel through `session`; on success the session is registered.
    private func join(_ session: HTTPMediaSession, claims: TokenClaims, from address: SocketAddress?, sdk: String) async -> Result<ChannelRoom, SignalError> {
        guard manager.admitsJoin(from: address) else {
            return .failure(SignalError(.rateLimited, "too many joins from this address; retry shortly"))
        }
        switch await manager.join(session.key, JoinRequest(token: "", sdk: sdk), claims: claims, connection: session, requestId: nil) {
        case .success(let (room, response)):
            session.state.withLock {
                $0.room = room
                $0.sessionId = response.sessionId
            }
            sessions.withLock { $0[session.id] = session }
            return .success(room)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Sends `body` to the session's room as the session's request.
    private func request(_ session: HTTPMediaSession, _ body: ClientRequest.Body) async -> Result<ResponseData, SignalError> {
        let (room, sessionId) = session.state.withLock { ($0.room, $0.sessionId) }
        guard let room, let sessionId else { return .failure(SignalError(.notFound, "the session has ended")) }
        return await room.handle(ClientRequest(id: session.requestId(), body), uid: session.uid, sessionId: sessionId, connection: session)
    }

    /// WHIP: joins as `claims.sub` and publishes `offer`; returns the session and the answer.
    /// - Throws (as failure): `invalid_parameter` for an offer that does not parse or sends
    ///   nothing; `permission_denied` for a token without publish rights; the room's refusals.
    func publish(_ key: ChannelKey, claims: TokenClaims, offer text: String, from address: SocketAddress?) async
        -> Result<(HTTPMediaSession, String), SignalError> {
        guard claims.grant?.publish == true else { return .failure(SignalError(.permissionDenied, "token does not allow publish")) }
        let offer: SessionDescription
        let tracks: [PublishTrack]
        do throws(SignalError) {
            offer = try ServerNegotiation.parse(text, "offer")
            tracks = try HTTPMediaNegotiation.publishTracks(offer: offer)
            _ = try SDPConversions.remoteTransport(of: offer)
        } catch {
            return .failure(error)
        }
        let session = HTTPMediaSession(kind: .whip, key: key, uid: claims.sub, endpointPath: "/whip/v1/\(key.name)", sessions: self)
        session.state.withLock { $0.offer = offer }
        if case .failure(let error) = await join(session, claims: claims, from: address, sdk: "whip") { return .failure(error) }
        switch await request(session, .publish(PublishRequest(sdp: text, tracks: tracks))) {
        case .success(.answer(let answer)):
            return .success((session, answer.sdp))
        case .success:
            await end(session)
            return .failure(SignalError(.internalError, "publish answered no SDP"))
        case .failure(let error):
            await end(session)
            return .failure(error)
        }
    }

    /// WHEP: joins as `claims.sub` and subscribes to `target`'s first audio and video tracks
    /// that the player's offer can receive; returns the session and the answer to the offer.
    /// - Parameters:
    ///   - composite: `target` is a composite (a hidden participant, docs/egress.md), not a user.
    ///   - endpointPath: the path the offer was posted to; the session's resource is under it.
    func play(_ key: ChannelKey, target: String, composite: Bool = false, claims: TokenClaims, offer text: String, from address: SocketAddress?,
              endpointPath: String) async -> Result<(HTTPMediaSession, String), SignalError> {
        guard claims.grant?.subscribe == true else { return .failure(SignalError(.permissionDenied, "token does not allow subscribe")) }
        guard target != claims.sub else { return .failure(SignalError(.invalidParameter, "a player cannot play its own uid")) }
        let offer: SessionDescription
        do throws(SignalError) {
            offer = try ServerNegotiation.parse(text, "offer")
            _ = try SDPConversions.remoteTransport(of: offer)
        } catch {
            return .failure(error)
        }
        let audioMids = HTTPMediaNegotiation.receivingMids(offer, kind: .audio)
        let videoMids = HTTPMediaNegotiation.receivingMids(offer, kind: .video)
        guard !audioMids.isEmpty || !videoMids.isEmpty else {
            return .failure(SignalError(.invalidParameter, "offer receives no audio or video (no recvonly or sendrecv m-section)"))
        }
        let session = HTTPMediaSession(kind: .whep, key: key, uid: claims.sub, endpointPath: endpointPath, sessions: self)
        session.state.withLock { $0.offer = offer }
        let room: ChannelRoom
        switch await join(session, claims: claims, from: address, sdk: "whep") {
        case .success(let joined): room = joined
        case .failure(let error): return .failure(error)
        }
        // The target's later tracks (its events) are followed once this first subscription is
        // made: the follow-ups queue behind it (`following`), and the target is known before the
        // room is read, so no track added in between is missed.
        let work: Task<Result<String, SignalError>, Never> = session.state.withLock { s in
            s.target = composite ? nil : target
            let work = Task {
                await self.subscribe(session, room: room, target: target, composite: composite, offer: offer, audioMids: audioMids, videoMids: videoMids)
            }
            s.following = Task { _ = await work.value }
            return work
        }
        let result = await work.value
        if case .failure = result { await end(session) }
        return result.map { (session, $0) }
    }

    private func subscribe(_ session: HTTPMediaSession, room: ChannelRoom, target: String, composite: Bool, offer: SessionDescription,
                           audioMids: [String], videoMids: [String]) async -> Result<String, SignalError> {
        let user = await room.perform(ifClosed: nil as UserInfo?) { room in
            room.participants[target].flatMap { $0.hidden == composite ? room.userInfo($0) : nil }
        }
        guard let user, !user.tracks.isEmpty else {
            return .failure(SignalError(.notFound, "no \(composite ? "composite" : "user") \(target) with tracks in channel \(session.key.name)"))
        }
        let audio = user.tracks.first { $0.kind == .audio && $0.desc == "mic" } ?? user.tracks.first { $0.kind == .audio }
        let video = user.tracks.first { $0.kind == .video && $0.desc == "camera_big" } ?? user.tracks.first { $0.kind == .video }
        var wanted: [(TrackInfo, String)] = []
        if let audio, let mid = audioMids.first,
           HTTPMediaNegotiation.offers(offer, mid: mid, codec: ServerMedia.subscriberCodec(kind: .audio, trackCodec: audio.codec)) {
            wanted.append((audio, mid))
        }
        if let video, let mid = videoMids.first,
           HTTPMediaNegotiation.offers(offer, mid: mid, codec: ServerMedia.subscriberCodec(kind: .video, trackCodec: video.codec, profileLevelID: video.profileLevelID)) {
            wanted.append((video, mid))
        }
        guard !wanted.isEmpty else {
            let codecs = [audio, video].compactMap { $0?.codec }.joined(separator: ", ")
            return .failure(SignalError(.invalidParameter, "the offer receives none of \(target)'s tracks in their codecs (\(codecs))"))
        }
        for (track, _) in wanted {
            if case .failure(let error) = await request(session, .subscribe(SubscribeRequest(trackId: track.id))) { return .failure(error) }
        }
        // The subscriber offers were posted to the room's inbox by the subscriptions: one more
        // job runs after them, so the session holds the latest offer then.
        await room.perform(ifClosed: ()) { _ in }
        guard let serverOffer = session.state.withLock(\.serverOffer) else {
            return .failure(SignalError(.internalError, "the server made no subscriber offer"))
        }
        let server: SessionDescription
        do throws(SignalError) { server = try ServerNegotiation.parse(serverOffer.sdp, "subscriber offer") } catch { return .failure(error) }
        var pairs: [HTTPMediaNegotiation.Pair] = []
        var pairedTracks: [String: String] = [:]
        for (track, mid) in wanted {
            guard let section = server.media.first(where: { $0.msid.first?.trackID == track.id }), let serverMid = section.mid else { continue }
            pairs.append(HTTPMediaNegotiation.Pair(playerMid: mid, serverMid: serverMid))
            pairedTracks[mid] = track.id
        }
        // A kind the user does not publish yet: the player's first section of it waits for one.
        var waiting: [String] = []
        if !composite {
            if audio == nil, let mid = audioMids.first { waiting.append(mid) }
            if video == nil, let mid = videoMids.first { waiting.append(mid) }
        }
        session.state.withLock {
            $0.pairs = pairs
            $0.pairedTracks = pairedTracks
            $0.waiting = waiting
        }
        return await answer(session, playerOffer: offer, serverOffer: serverOffer, pairs: pairs)
    }

    // MARK: - Tracks published later

    /// WHEP: the played user published `tracks`; each that a waiting section of the player can
    /// receive starts playing there (after the session's earlier follow-ups).
    func follow(_ session: HTTPMediaSession, added tracks: [TrackInfo]) {
        chain(session) { await self.startPlaying(session, tracks) }
    }

    /// WHEP: the played user unpublished `trackId` (nil: left the channel, all its tracks); the
    /// section waits for the next track.
    func follow(_ session: HTTPMediaSession, removed trackId: String?) {
        chain(session) {
            session.state.withLock { s in
                for (mid, track) in s.pairedTracks where trackId == nil || track == trackId {
                    s.pairedTracks[mid] = nil
                    s.pairs.removeAll { $0.playerMid == mid }
                    s.waiting.append(mid)
                }
            }
        }
    }

    private func chain(_ session: HTTPMediaSession, _ work: @escaping @Sendable () async -> Void) {
        session.state.withLock { s in
            let previous = s.following
            s.following = Task {
                await previous?.value
                await work()
            }
        }
    }

    /// Subscribes to each of `tracks` a waiting section can receive and answers the server's
    /// offer for the player: the player already answered `sendonly` there, so it takes the
    /// stream when its packets come, and nothing goes back to it.
    private func startPlaying(_ session: HTTPMediaSession, _ tracks: [TrackInfo]) async {
        for track in tracks {
            let kind: MediaKind = track.kind == .audio ? .audio : .video
            let codec = ServerMedia.subscriberCodec(kind: kind, trackCodec: track.codec, profileLevelID: track.profileLevelID)
            let claimed = session.state.withLock { s -> (SessionDescription, String)? in
                guard !s.ended, let offer = s.offer, !s.pairedTracks.values.contains(track.id),
                      let mid = HTTPMediaNegotiation.waitingMid(s.waiting, in: offer, kind: kind, codec: codec) else { return nil }
                s.waiting.removeAll { $0 == mid }
                return (offer, mid)
            }
            guard let (offer, mid) = claimed else { continue }
            if case .failure(let error) = await request(session, .subscribe(SubscribeRequest(trackId: track.id))) {
                Log.warn("whep", "\(session.id) cannot play \(track.id) of \(track.uid): \(error)")
                session.state.withLock { $0.waiting.append(mid) }
                continue
            }
            await session.state.withLock(\.room)?.perform(ifClosed: ()) { _ in }
            let (serverOffer, playerAnswer) = session.state.withLock { ($0.serverOffer, $0.playerAnswer) }
            guard let serverOffer, let playerAnswer, let server = try? ServerNegotiation.parse(serverOffer.sdp, "subscriber offer"),
                  let serverMid = server.media.first(where: { $0.msid.first?.trackID == track.id })?.mid else { continue }
            let pairs = session.state.withLock { s -> [HTTPMediaNegotiation.Pair] in
                s.pairs.append(HTTPMediaNegotiation.Pair(playerMid: mid, serverMid: serverMid))
                s.pairedTracks[mid] = track.id
                return s.pairs
            }
            do throws(SignalError) {
                let answer = try HTTPMediaNegotiation.subscriberAnswer(playerOffer: offer, playerAnswer: playerAnswer, serverOffer: server,
                                                                      pairs: pairs, sessionID: server.origin.sessionID)
                if case .failure(let error) = await request(session, .subscriberAnswer(SessionDescriptionMessage(sdp: answer, revision: serverOffer.revision))) {
                    throw error
                }
            } catch {
                Log.warn("whep", "\(session.id) cannot answer for \(track.id) of \(track.uid): \(error)")
            }
        }
    }

    /// Answers the server's subscriber offer for the player and returns the player's answer.
    private func answer(_ session: HTTPMediaSession, playerOffer: SessionDescription, serverOffer: SessionDescriptionMessage,
                        pairs: [HTTPMediaNegotiation.Pair]) async -> Result<String, SignalError> {
        let playerAnswer: SessionDescription
        let subscriberAnswer: String
        do throws(SignalError) {
            let server = try ServerNegotiation.parse(serverOffer.sdp, "subscriber offer")
            let sessionID = server.origin.sessionID
            let (waiting, target) = session.state.withLock { ($0.waiting, $0.target) }
            playerAnswer = try HTTPMediaNegotiation.playerAnswer(playerOffer: playerOffer, serverOffer: server, pairs: pairs, waiting: waiting,
                                                                 streamID: target, sessionID: sessionID)
            subscriberAnswer = try HTTPMediaNegotiation.subscriberAnswer(playerOffer: playerOffer, playerAnswer: playerAnswer, serverOffer: server,
                                                                         pairs: pairs, sessionID: sessionID)
        } catch {
            return .failure(error)
        }
        let message = SessionDescriptionMessage(sdp: subscriberAnswer, revision: serverOffer.revision)
        if case .failure(let error) = await request(session, .subscriberAnswer(message)) { return .failure(error) }
        session.state.withLock { $0.playerAnswer = playerAnswer }
        return .success(playerAnswer.serialize())
    }

    /// A `PATCH` with `fragment` (RFC 9725 §4.3): new ICE credentials restart ICE and return the
    /// server's fragment (`200`); otherwise the candidates are taken (`204`, `nil`). The server is
    /// ICE-lite and learns the client's addresses from its checks, so candidates need no action.
    func patch(_ session: HTTPMediaSession, fragment: ICEFragment) async -> Result<ICEFragment?, SignalError> {
        guard let offer = session.state.withLock(\.offer) else { return .failure(SignalError(.notFound, "the session has ended")) }
        guard let credentials = fragment.credentials else { return .success(nil) }
        let current = try? SDPConversions.remoteTransport(of: offer).0
        guard current?.ufrag != credentials.ufrag || current?.pwd != credentials.pwd else { return .success(nil) }
        let restarted: SessionDescription
        do throws(SignalError) {
            restarted = try ServerNegotiation.parse(HTTPMediaNegotiation.offer(offer, withICE: credentials.ufrag, credentials.pwd), "offer")
        } catch {
            return .failure(error)
        }
        switch session.kind {
        case .whip:
            switch await request(session, .restartICE(RestartICERequest(transport: .publish, sdp: restarted.serialize()))) {
            case .success(.answer(let answer)):
                session.state.withLock { $0.offer = restarted }
                return (try? HTTPMediaNegotiation.restartFragment(answer: answer.sdp)).map { .success($0) }
                    ?? .failure(SignalError(.internalError, "the restart answer has no ICE credentials"))
            case .success: return .failure(SignalError(.internalError, "restart answered no SDP"))
            case .failure(let error): return .failure(error)
            }
        case .whep:
            guard case .success = await request(session, .restartICE(RestartICERequest(transport: .subscribe))) else {
                return .failure(SignalError(.wrongState, "the subscribe transport cannot restart"))
            }
            let room = session.state.withLock(\.room)
            await room?.perform(ifClosed: ()) { _ in }
            let (serverOffer, pairs) = session.state.withLock { ($0.serverOffer, $0.pairs) }
            guard let serverOffer else { return .failure(SignalError(.internalError, "the server made no restart offer")) }
            if case .failure(let error) = await answer(session, playerOffer: restarted, serverOffer: serverOffer, pairs: pairs) {
                return .failure(error)
            }
            session.state.withLock { $0.offer = restarted }
            let server = try? ServerNegotiation.parse(serverOffer.sdp, "subscriber offer")
            guard let server, let first = server.media.first(where: { !$0.isRejected }), let ufrag = server.iceUfrag(of: first),
                  let pwd = server.icePwd(of: first) else { return .failure(SignalError(.internalError, "the restart offer has no ICE credentials")) }
            return .success(ICEFragment(iceLite: true, iceUfrag: ufrag, icePwd: pwd))
        }
    }

    /// Ends the session: the participant leaves (the others get `user_left`).
    func end(_ session: HTTPMediaSession) async {
        let alreadyEnded = session.state.withLock { s -> Bool in
            defer { s.ended = true }
            return s.ended
        }
        forget(session)
        guard !alreadyEnded else { return }
        _ = await request(session, .leave)
    }
}
