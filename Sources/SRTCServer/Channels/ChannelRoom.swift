import RTCCrypto
import SRTCProtocol

/// One channel: its users, their tracks and subscriptions, and the fan-out of events.
/// An actor, so every change to a channel is serialized; the media plane runs elsewhere (SFU I/O
/// thread) and reports back through `ParticipantMediaEvents`.
actor ChannelRoom {
    let key: ChannelKey
    let createdAt: Int64
    let limits: ChannelLimits
    var metadata: String?
    /// Users by uid.
    var participants: [String: Participant] = [:]
    /// Every published track by id.
    var tracks: [String: TrackInfo] = [:]
    /// Set once the room closed; every later call is refused.
    var closed = false
    let media: RoomMedia?
    /// The media router exists (created on the first publish or subscribe).
    var mediaPrepared = false
    let observer: RoomObserver
    private var joinBucket: TokenBucket
    /// The speaker list sent last (hidden participants removed), so an unchanged one is not resent.
    var lastSpeakers: ActiveSpeakersSnapshot?

    init(key: ChannelKey, limits: ChannelLimits, media: RoomMedia?, observer: RoomObserver) {
        self.key = key
        self.createdAt = unixMilliseconds()
        self.limits = limits
        self.media = media
        self.observer = observer
        self.joinBucket = TokenBucket(ratePerSecond: Double(limits.joinsPerSecond), burst: Double(limits.joinsPerSecond))
    }

    // MARK: - Snapshots

    var info: ChannelInfo {
        ChannelInfo(channel: key.name, createdAt: createdAt, userCount: visibleCount, metadata: metadata)
    }

    /// Participants that are users (hidden egress workers are not: docs/protocol.md, "Hidden participants").
    var visibleCount: Int { participants.values.count { !$0.hidden } }

    func userInfo(_ p: Participant) -> UserInfo {
        UserInfo(uid: p.uid, nickname: p.nickname, custom: p.custom, joinedAt: p.joinedAt,
                 tracks: p.publishedTrackIds.compactMap { tracks[$0] })
    }

    /// Every user with tracks, in join order.
    var users: [UserInfo] {
        participants.values.filter { !$0.hidden }.sorted { ($0.joinedAt, $0.uid) < ($1.joinedAt, $1.uid) }.map(userInfo)
    }

    /// The tracks of hidden participants other than `uid` (announced in `hidden_tracks`).
    func hiddenTracks(except uid: String) -> [TrackInfo] {
        participants.values.filter { $0.hidden && $0.uid != uid }.sorted { $0.uid < $1.uid }
            .flatMap { p in p.publishedTrackIds.compactMap { tracks[$0] } }
    }

    var isEmpty: Bool { participants.isEmpty }

    // MARK: - Fan-out

    /// Sends `event` to every connected participant except `uid`.
    func broadcast(_ event: ServerEvent, except uid: String? = nil) {
        for p in participants.values where p.uid != uid { p.send(event) }
    }

    // MARK: - Join, resume, leave

    /// Admits a verified session. `claims` come from the token, already checked against the channel.
    func join(_ request: JoinRequest, claims: TokenClaims, connection: SignalConnection) async -> Result<JoinResponse, SignalError> {
        guard !closed else { return .failure(Self.closedError) }
        guard let grant = claims.grant else { return .failure(SignalError(.invalidToken, "token has no channel grant")) }
        let uid = claims.sub
        if let sessionId = request.sessionId, let existing = participants[uid], existing.sessionId == sessionId {
            return .success(resume(existing, connection: connection, grant: grant, claims: claims))
        }
        if let custom = request.custom, custom.utf8.count > limits.maxCustomDataBytes {
            return .failure(SignalError(.payloadTooLarge, "custom exceeds \(limits.maxCustomDataBytes) bytes"))
        }
        guard joinBucket.take(now: monotonicSeconds()) else {
            return .failure(SignalError(.rateLimited, "too many joins in this channel; retry shortly"))
        }
        if let old = participants[uid] {
            // A user's token cannot take over a hidden participant's uid (and so end a composite).
            guard !old.hidden || grant.hidden else {
                return .failure(SignalError(.alreadyExists, "uid \(uid) is in use by the server"))
            }
            old.send(.disconnected(Disconnected(reason: .duplicateLogin, message: "the same uid joined again")))
            old.connection?.close(code: 1000, reason: "duplicate login")
            await remove(old, reason: .duplicateLogin)
        } else if !grant.hidden, visibleCount >= limits.maxUsersPerChannel {
            return .failure(SignalError(.limitReached, "channel has \(limits.maxUsersPerChannel) users, the limit"))
        }
        let participant = Participant(uid: uid, sessionId: "SE_" + SecureRandom.string(count: 20), grant: grant,
                                      nickname: request.nickname, custom: request.custom, joinedAt: unixMilliseconds(),
                                      connection: connection)
        participants[uid] = participant
        scheduleExpiry(participant, exp: claims.exp)
        let response = JoinResponse(sessionId: participant.sessionId, resumed: false, channel: info, me: userInfo(participant),
                                    users: users.filter { $0.uid != uid }, reconnectGraceSeconds: limits.reconnectGraceSeconds,
                                    serverTime: unixMilliseconds(), hiddenTracks: hiddenTracks(except: uid))
        guard !participant.hidden else { return .success(response) }
        broadcast(.userJoined(userInfo(participant)), except: uid)
        broadcast(.channelUpdated(info), except: uid)
        observer.userJoined(room: key, uid: uid)
        return .success(response)
    }

    private func resume(_ p: Participant, connection: SignalConnection, grant: ChannelGrant, claims: TokenClaims) -> JoinResponse {
        if let old = p.connection, old !== connection { old.close(code: 1000, reason: "resumed elsewhere") }
        p.connection = connection
        p.disconnectedAt = nil
        p.graceTask?.cancel()
        p.graceTask = nil
        p.grant = grant
        scheduleExpiry(p, exp: claims.exp)
        observer.sessionResumed(room: key, uid: p.uid)
        return JoinResponse(sessionId: p.sessionId, resumed: true, channel: info, me: userInfo(p),
                            users: users.filter { $0.uid != p.uid }, reconnectGraceSeconds: limits.reconnectGraceSeconds,
                            serverTime: unixMilliseconds(),
                            subscriptions: p.subscriptions.map { SubscribeRequest(trackId: $0.key, layer: $0.value) }.sorted { $0.trackId < $1.trackId },
                            hiddenTracks: hiddenTracks(except: p.uid))
    }

    /// The WebSocket of `sessionId` dropped without `leave`: keep the session for the grace period.
    func connectionLost(uid: String, sessionId: String, connection: SignalConnection) {
        guard let p = participants[uid], p.sessionId == sessionId, p.connection === connection else { return }
        p.connection = nil
        p.disconnectedAt = unixMilliseconds()
        let grace = limits.reconnectGraceSeconds
        p.graceTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(grace))
            guard !Task.isCancelled else { return }
            await self?.graceExpired(uid: uid, sessionId: sessionId)
        }
    }

    private func graceExpired(uid: String, sessionId: String) async {
        guard let p = participants[uid], p.sessionId == sessionId, p.connection == nil else { return }
        await remove(p, reason: .timeout)
    }

    /// The longest single sleep of the token-expiry timer; it checks again after each.
    static let longestExpiryWaitMs: Int64 = 24 * 3600 * 1000

    private func scheduleExpiry(_ p: Participant, exp: Int64) {
        p.expiryTask?.cancel()
        let uid = p.uid, sessionId = p.sessionId
        // `exp` is the signer's choice, up to Int64.max: saturate, and wait in bounded steps.
        let expiresAtMs = exp.multipliedSaturating(by: 1000)
        p.expiryTask = Task { [weak self] in
            while case let remaining = expiresAtMs.subtractingSaturating(unixMilliseconds()), remaining > 0 {
                try? await Task.sleep(for: .milliseconds(min(remaining, Self.longestExpiryWaitMs)))
                guard !Task.isCancelled else { return }
            }
            await self?.tokenExpired(uid: uid, sessionId: sessionId)
        }
    }

    private func tokenExpired(uid: String, sessionId: String) async {
        guard let p = participants[uid], p.sessionId == sessionId else { return }
        await end(p, reason: .tokenExpired, message: "token expired")
    }

    /// Ends a session on the server's initiative: tells it why, closes its socket, removes it.
    func end(_ p: Participant, reason: DisconnectReason, message: String? = nil) async {
        p.send(.disconnected(Disconnected(reason: reason, message: message)))
        p.connection?.close(code: 1000, reason: reason.rawValue)
        await remove(p, reason: reason)
    }

    /// Removes a participant: its tracks, its subscriptions, its media; tells the others.
    func remove(_ p: Participant, reason: DisconnectReason) async {
        guard participants[p.uid] === p else { return }
        p.cancelTimers()
        participants[p.uid] = nil
        for trackId in p.publishedTrackIds { await removeTrack(trackId, of: p, notifyPublisher: false) }
        await p.media?.close()
        p.media = nil
        if !p.hidden {
            broadcast(.userLeft(UserLeft(uid: p.uid, reason: reason)))
            broadcast(.channelUpdated(info))
            observer.userLeft(room: key, uid: p.uid, reason: reason)
        }
        if participants.isEmpty { observer.roomBecameEmpty(key) }
    }

    /// Removes a track and every subscription to it.
    func removeTrack(_ trackId: String, of publisher: Participant, notifyPublisher: Bool) async {
        guard let track = tracks.removeValue(forKey: trackId) else { return }
        publisher.publishedTrackIds.removeAll { $0 == trackId }
        for p in participants.values where p.subscriptions[trackId] != nil {
            p.subscriptions[trackId] = nil
            await p.media?.unsubscribe(trackId: trackId)
            p.send(.subscriptionEnded(SubscriptionEnded(trackId: trackId, reason: "track_removed")))
        }
        broadcast(.trackRemoved(TrackEvent(uid: publisher.uid, track: track)), except: notifyPublisher ? nil : publisher.uid)
        observer.trackUnpublished(room: key, uid: publisher.uid, track: track)
    }

    /// The error a closed room answers `join` with; the manager retries on a new room.
    static let closedError = SignalError(.notFound, "channel is closed")

    /// Marks the room closed when nobody is in it (so a racing join goes to a new room).
    func closeIfEmpty() async -> Bool {
        guard participants.isEmpty, !closed else { return closed }
        closed = true
        if mediaPrepared { await media?.close() }
        return true
    }

    /// Closes the channel: every session ends with `reason`.
    func close(reason: DisconnectReason) async {
        guard !closed else { return }
        closed = true
        for p in Array(participants.values) { await end(p, reason: reason, message: "channel closed") }
        if mediaPrepared { await media?.close() }
        observer.roomBecameEmpty(key)
    }

    // MARK: - Server API

    /// Removes `uid` (server API kick); `false` when not present.
    func kick(uid: String, message: String?) async -> Bool {
        guard let p = participants[uid], !p.hidden else { return false }
        await end(p, reason: .kicked, message: message)
        return true
    }

    /// Delivers a backend message to `to` (everyone when nil/empty); returns how many got it.
    func deliver(_ message: CustomMessage) -> Int {
        var count = 0
        let recipients = message.to.map(Set.init) ?? []
        for p in participants.values where !p.hidden && p.connection != nil && p.uid != message.from
            && (recipients.isEmpty || recipients.contains(p.uid)) {
            p.send(.message(message))
            count += 1
        }
        return count
    }

    /// Sets channel metadata (server API) and tells everyone.
    func setMetadata(_ value: String?) {
        metadata = value
        broadcast(.channelUpdated(info))
    }

    private func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What happens in rooms that the rest of the server cares about (webhooks, metrics, cleanup).
protocol RoomObserver: Sendable {
    func userJoined(room: ChannelKey, uid: String)
    func userLeft(room: ChannelKey, uid: String, reason: DisconnectReason)
    func sessionResumed(room: ChannelKey, uid: String)
    func trackPublished(room: ChannelKey, uid: String, track: TrackInfo)
    func trackUnpublished(room: ChannelKey, uid: String, track: TrackInfo)
    func roomBecameEmpty(_ room: ChannelKey)
}

/// A token bucket: `burst` tokens, refilled at `ratePerSecond`.
struct TokenBucket {
    let ratePerSecond: Double
    let burst: Double
    private var tokens: Double
    private var last: Double?

    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.tokens = burst
    }

    mutating func take(now: Double) -> Bool {
        if let last { tokens = min(burst, tokens + (now - last) * ratePerSecond) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
