import RTCCrypto
import SRTCProtocol

/// One channel: its users, their tracks and subscriptions, and the fan-out of events.
///
/// Every change reaches the room through its `RoomInbox`, applied one at a time in the order it
/// happened: the entry points in `ChannelRoom+Inbox.swift` (join, requests, server API calls)
/// post a job and await its answer; the SFU and the timers post `RoomEvent`s. The methods of this
/// actor run only inside those jobs; reading a snapshot (`info`, `users`) may go to the actor
/// directly. A job must never wait for something that itself waits for this room's inbox.
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
    /// The router's creation while it is under way: requests arriving meanwhile (the actor is
    /// reentrant across the await) wait for it instead of creating it a second time.
    var mediaPreparation: Task<Bool, Never>?
    let observer: RoomObserver
    let clock: RoomClock
    /// The modules asked before a publish (`ChannelRoom+Authority`); set once when the room is made.
    let modules: [any ServerModule]
    /// Server-side mutes the modules put on this channel's tracks.
    var holds = MediaHolds()
    /// The one serial path of every change (see the type's comment).
    nonisolated let inbox = RoomInbox()
    private var joinBucket: TokenBucket
    /// Joins per uid (a resume is not a join): one token holder's join loop cannot use up the
    /// channel's joins and keep everyone else out.
    private var userJoinBuckets: KeyedTokenBuckets<String>
    /// The speaker list sent last (hidden participants removed), so an unchanged one is not resent.
    var lastSpeakers: ActiveSpeakersSnapshot?
    /// The same limit counted across a cluster (`--redis-url`), checked after this room's bucket.
    private let sharedJoins: ClusterJoinLimiter?
    /// Where this room's record is kept for the channel's next node, on a cluster (`+Handoff`).
    private let records: RoomRecordStore?
    /// The record saved last (a change that leaves it equal writes nothing).
    private var savedRecord: RoomRecord?
    /// Handed to another node: the record stays as it was handed over.
    var handedOff = false

    init(key: ChannelKey, limits: ChannelLimits, media: RoomMedia?, observer: RoomObserver, clock: RoomClock = SystemRoomClock(),
         modules: [any ServerModule] = [], sharedJoins: ClusterJoinLimiter? = nil, records: RoomRecordStore? = nil) {
        self.sharedJoins = sharedJoins
        self.records = records
        self.key = key
        self.createdAt = clock.now()
        self.limits = limits
        self.media = media
        self.observer = observer
        self.clock = clock
        self.modules = modules
        self.joinBucket = TokenBucket(ratePerSecond: Double(limits.joinsPerSecond), burst: Double(limits.joinsPerSecond))
        self.userJoinBuckets = KeyedTokenBuckets(ratePerSecond: Double(limits.userJoinsPerSecond),
                                                 burst: Double(limits.userJoinsPerSecond * ChannelLimits.userJoinBurstSeconds))
        let entries = inbox.entries
        if let records {
            // Sessions the channel's previous node recorded are taken over before any join.
            _ = inbox.post(job: { room in
                let record = await records.load(room.key)
                if let record { room.adopt(record) }
                room.observer.channelOpened(room: room.key, takenOver: record != nil)
            })
        }
        Task { await self.drain(entries) }
    }

    /// Applies the inbox's entries one at a time until the room closes.
    private func drain(_ entries: AsyncStream<RoomInbox.Entry>) async {
        for await entry in entries {
            switch entry {
            case .event(let event):
                await apply(event)
                switch event {
                case .graceExpired, .tokenExpired: saveRecord()
                default: break
                }
            case .job(let job):
                await job(self)
                saveRecord()
            }
        }
    }

    /// Saves this room's record for the channel's next node when it changed (cluster only).
    private func saveRecord() {
        guard let records, !handedOff else { return }
        let record = self.record
        guard record != savedRecord else { return }
        savedRecord = record
        records.save(key, record.sessions.isEmpty ? nil : record)
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
    func admit(_ request: JoinRequest, claims: TokenClaims, connection: SignalConnection) async -> Result<JoinResponse, SignalError> {
        guard !closed else { return .failure(Self.closedError) }
        guard let grant = claims.grant else { return .failure(SignalError(.invalidToken, "token has no channel grant")) }
        let uid = claims.sub
        if let sessionId = request.sessionId, let existing = participants[uid], existing.sessionId == sessionId {
            if request.dataChannel == true { existing.wantsDataChannel = true }
            return .success(await resume(existing, connection: connection, grant: grant, claims: claims))
        }
        if let custom = request.custom, custom.utf8.count > limits.maxCustomDataBytes {
            return .failure(SignalError(.payloadTooLarge, "custom exceeds \(limits.maxCustomDataBytes) bytes"))
        }
        let now = clock.monotonicSeconds()
        guard limits.userJoinsPerSecond == 0 || userJoinBuckets.take(uid, now: now) else {
            return .failure(SignalError(.rateLimited, "too many joins by \(uid) in this channel; retry shortly"))
        }
        guard joinBucket.take(now: now) else {
            return .failure(SignalError(.rateLimited, "too many joins in this channel; retry shortly"))
        }
        if let sharedJoins, await !sharedJoins.admit(key, nowMilliseconds: clock.now()) {
            return .failure(SignalError(.rateLimited, "too many joins in this channel across the cluster; retry shortly"))
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
                                      nickname: request.nickname, custom: request.custom, joinedAt: clock.now(),
                                      connection: connection)
        participants[uid] = participant
        scheduleExpiry(participant, exp: claims.exp)
        let response = JoinResponse(sessionId: participant.sessionId, resumed: false, channel: info, me: userInfo(participant),
                                    users: users.filter { $0.uid != uid }, reconnectGraceSeconds: limits.reconnectGraceSeconds,
                                    serverTime: clock.now(), hiddenTracks: hiddenTracks(except: uid))
        guard !participant.hidden else { return .success(response) }
        broadcast(.userJoined(userInfo(participant)), except: uid)
        broadcast(.channelUpdated(info), except: uid)
        observer.userJoined(room: key, uid: uid)
        if request.dataChannel == true {
            participant.wantsDataChannel = true
            // The offer is posted to the inbox, so it follows the join response.
            await mediaOf(participant)?.openDataChannels(publishData: participant.grant.publishData)
        }
        return .success(response)
    }

    private func resume(_ p: Participant, connection: SignalConnection, grant: ChannelGrant, claims: TokenClaims) async -> JoinResponse {
        if let old = p.connection, old !== connection { old.close(code: 1000, reason: "resumed elsewhere") }
        p.connection = connection
        p.disconnectedAt = nil
        p.graceTimer?.cancel()
        p.graceTimer = nil
        p.grant = grant
        scheduleExpiry(p, exp: claims.exp)
        observer.sessionResumed(room: key, uid: p.uid)
        var response = JoinResponse(sessionId: p.sessionId, resumed: true, channel: info, me: userInfo(p),
                                    users: users.filter { $0.uid != p.uid }, reconnectGraceSeconds: limits.reconnectGraceSeconds,
                                    serverTime: clock.now(),
                                    subscriptions: (p.subscriptions.merging(p.pendingSubscriptions) { a, _ in a })
                                        .map { SubscribeRequest(trackId: $0.key, layer: $0.value) }.sorted { $0.trackId < $1.trackId },
                                    hiddenTracks: hiddenTracks(except: p.uid))
        if p.moved {
            p.moved = false
            response.moved = true
            // The new subscribe transport's first offer carries the data channels (their section
            // comes first in every offer), before the subscriptions made again add theirs.
            if p.wantsDataChannel { await mediaOf(p)?.openDataChannels(publishData: p.grant.publishData) }
            await resubscribePending()
        }
        return response
    }

    /// The WebSocket of `sessionId` dropped without `leave`: keep the session for the grace period.
    func holdForResume(uid: String, sessionId: String, connection: SignalConnection) {
        guard let p = participants[uid], p.sessionId == sessionId, p.connection === connection else { return }
        p.connection = nil
        p.disconnectedAt = clock.now()
        let deadline = p.disconnectedAt! + Int64(limits.reconnectGraceSeconds) * 1000
        p.graceTimer = clock.schedule(at: deadline) { [inbox] in inbox.post(.graceExpired(uid: uid, sessionId: sessionId)) }
    }

    /// Ends the session when its token expires: at `exp` plus the leeway the token was accepted
    /// with, so a token accepted within the leeway is not ended the moment it joins.
    func scheduleExpiry(_ p: Participant, exp: Int64) {
        p.expiryTimer?.cancel()
        p.expiresAt = exp
        let uid = p.uid, sessionId = p.sessionId
        // `exp` is the signer's choice, up to Int64.max: saturate.
        p.expiryTimer = clock.schedule(at: exp.addingSaturating(limits.tokenLeewaySeconds).multipliedSaturating(by: 1000)) { [inbox] in
            inbox.post(.tokenExpired(uid: uid, sessionId: sessionId))
        }
    }

    /// Applies a media event or a timer.
    func apply(_ event: RoomEvent) async {
        switch event {
        case .subscriberOffer(let uid, let sdp, let revision):
            participants[uid]?.send(.subscriberOffer(SessionDescriptionMessage(sdp: sdp, revision: revision)))
        case .layerSwitched(let subscriber, let trackId, let layer, let previous, let cause):
            // The track may be gone already (unpublished): nothing to announce then.
            guard let publisher = tracks[trackId]?.uid else { return }
            let info = LayerSwitchedInfo(uid: publisher, trackId: trackId, layer: layer, previous: previous, cause: cause)
            if subscriber.hasPrefix(EdgeRelay.subscriberPrefix) {
                // A relay to another node switched: every session that node serves the track to sees it.
                let node = String(subscriber.dropFirst(EdgeRelay.subscriberPrefix.count))
                for p in participants.values where p.subscriptions[trackId] != nil && (p.media as? EdgeParticipantMedia)?.servingNode == node {
                    p.send(.layerSwitched(info))
                }
            } else {
                participants[subscriber]?.send(.layerSwitched(info))
            }
        case .activeSpeakers(let snapshot):
            // A hidden participant (a composite publishing the mix) is never a speaker; the list
            // goes out only when what users see of it changed.
            let visible = ActiveSpeakersSnapshot(speakers: snapshot.speakers.filter { participants[$0.uid]?.hidden != true })
            guard visible != lastSpeakers else { return }
            lastSpeakers = visible
            broadcast(.activeSpeakers(visible))
        case .qualityReport(let report):
            participants[report.uid]?.send(.qualityReport(report))
        case .connectionQuality(let change):
            broadcast(.connectionQuality(change))
        case .dataChannelOpened(let uid, let owner, let connection):
            // A late event of an earlier session's media finds another owner.
            guard let p = participants[uid], let media = p.media, ObjectIdentifier(media) == owner else { return }
            if connection.channel == SignalDataChannel.reliableID { p.dataChannel = connection }
        case .dataChannelClosed(let uid, let transport, let channel):
            guard let p = participants[uid], let open = p.dataChannel as? DataChannelConnection,
                  open.transport.rawValue == transport, channel == nil || channel == open.channel else { return }
            p.dataChannel = nil
        case .graceExpired(let uid, let sessionId):
            guard let p = participants[uid], p.sessionId == sessionId, p.connection == nil else { return }
            await remove(p, reason: .timeout)
        case .tokenExpired(let uid, let sessionId):
            guard let p = participants[uid], p.sessionId == sessionId else { return }
            await end(p, reason: .tokenExpired, message: "token expired")
        }
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
        holds.forget(uid: p.uid)
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
        holds.forget(trackId: trackId)
        publisher.publishedTrackIds.removeAll { $0 == trackId }
        for p in participants.values { p.pendingSubscriptions[trackId] = nil }
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
    func closeWhenEmpty() async -> Bool {
        guard participants.isEmpty, !closed else { return closed }
        closed = true
        inbox.finish()
        if mediaPrepared { await media?.close() }
        return true
    }

    /// Closes the channel: every session ends with `reason`.
    func shutDown(reason: DisconnectReason) async {
        guard !closed else { return }
        closed = true
        inbox.finish()
        for p in Array(participants.values) { await end(p, reason: reason, message: "channel closed") }
        if mediaPrepared { await media?.close() }
        observer.roomBecameEmpty(key)
    }

    // MARK: - Server API

    /// Removes `uid` (server API kick); `false` when not present.
    func kickUser(uid: String, message: String?) async -> Bool {
        guard let p = participants[uid], !p.hidden else { return false }
        await end(p, reason: .kicked, message: message)
        return true
    }

    /// Delivers a custom message to `to` (everyone when nil/empty); returns how many got it.
    func deliverMessage(_ message: CustomMessage) -> Int {
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
    func updateMetadata(_ value: String?) {
        metadata = value
        broadcast(.channelUpdated(info))
    }
}

/// What happens in rooms that the rest of the server cares about (webhooks, metrics, cleanup).
protocol RoomObserver: Sendable {
    func userJoined(room: ChannelKey, uid: String)
    func userLeft(room: ChannelKey, uid: String, reason: DisconnectReason)
    func sessionResumed(room: ChannelKey, uid: String)
    func trackPublished(room: ChannelKey, uid: String, track: TrackInfo)
    func trackUnpublished(room: ChannelKey, uid: String, track: TrackInfo)
    func roomBecameEmpty(_ room: ChannelKey)
    /// A session taken over from another node (`adopt`): counted, not announced.
    func sessionAdopted(room: ChannelKey, uid: String)
    /// A session handed to another node (`handOff`): no longer counted here, not announced.
    func sessionHandedOff(room: ChannelKey, uid: String)
    /// On a cluster, the room looked for its previous node's record before any join:
    /// `takenOver` when it continues a channel another node ran (not a new channel).
    func channelOpened(room: ChannelKey, takenOver: Bool)
}

extension RoomObserver {
    func sessionAdopted(room: ChannelKey, uid: String) {}
    func sessionHandedOff(room: ChannelKey, uid: String) {}
    func channelOpened(room: ChannelKey, takenOver: Bool) {}
}
