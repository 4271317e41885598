import RTCCrypto
import SRTCProtocol

/// Who is in the room: admitting a verified session (or resuming one), and removing a
/// participant with its tracks, subscriptions and media. Runs inside the room's inbox jobs.
extension ChannelRoom {
    /// Admits a verified session. `claims` come from the token, already checked against the channel.
    func admit(_ request: JoinRequest, claims: TokenClaims, connection: SignalConnection) async -> Result<JoinResponse, SignalError> {
        guard !closed else { return .failure(Self.closedError) }
        guard let grant = claims.grant else { return .failure(SignalError(.invalidToken, "token has no channel grant")) }
        let uid = claims.sub
        if let sessionId = request.sessionId, let existing = participants[uid], existing.sessionId == sessionId {
            if request.dataChannel == true { existing.wantsDataChannel = true }
            if let codecs = request.videoCodecs { existing.videoCodecs = DecodedVideoCodecs(codecs) }
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
        participant.videoCodecs = request.videoCodecs.map(DecodedVideoCodecs.init)
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
        quality.forget(p.uid)
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
}
