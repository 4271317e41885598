import SRTCProtocol

// Moving a channel between cluster nodes (docs/deploy.md, "Drain and failover"): the node that
// runs a channel keeps its `RoomRecord` in Redis after every change; a draining node hands its
// channels off and asks their clients to reconnect; the node that takes a channel over (after a
// drain, or once its owner's heartbeat expired) adopts the recorded sessions. Each adopted
// session waits for its client as after a dropped WebSocket, and resumes with its session id:
// the others see nobody leave and keep seeing the same tracks. Media does not move: the resume
// says `moved`, the client publishes its tracks again (which keep their ids) and answers a new
// subscriber offer, and the recorded subscriptions are made again here.
extension ChannelRoom {
    /// This room as its next node needs it.
    var record: RoomRecord {
        RoomRecord(createdAt: createdAt, metadata: metadata, sessions: participants.values.sorted { $0.joinedAt < $1.joinedAt }.map { p in
            SessionRecord(uid: p.uid, sessionId: p.sessionId, grant: p.grant, nickname: p.nickname, custom: p.custom, joinedAt: p.joinedAt,
                          expiresAt: p.expiresAt, tracks: p.publishedTrackIds.compactMap { tracks[$0] },
                          subscriptions: p.subscriptions.merging(p.pendingSubscriptions) { a, _ in a }
                              .map { SubscribeRequest(trackId: $0.key, layer: $0.value) }.sorted { $0.trackId < $1.trackId },
                          dataChannel: p.wantsDataChannel ? true : nil)
        })
    }

    /// Takes over the sessions of `record` (the channel's previous node's), each waiting for its
    /// client for the reconnect grace period. Runs as the room's first job, before any join.
    func adopt(_ record: RoomRecord) {
        metadata = record.metadata
        let now = clock.now()
        for session in record.sessions where participants[session.uid] == nil {
            let p = Participant(uid: session.uid, sessionId: session.sessionId, grant: session.grant, nickname: session.nickname,
                                custom: session.custom, joinedAt: session.joinedAt, connection: nil)
            p.moved = true
            p.wantsDataChannel = session.dataChannel == true
            p.disconnectedAt = now
            for track in session.tracks {
                tracks[track.id] = track
                p.publishedTrackIds.append(track.id)
                p.unboundTrackIds.insert(track.id)
            }
            for subscription in session.subscriptions { p.pendingSubscriptions[subscription.trackId] = .some(subscription.layer) }
            participants[p.uid] = p
            let uid = p.uid, sessionId = p.sessionId
            p.graceTimer = clock.schedule(at: now + Int64(limits.reconnectGraceSeconds) * 1000) { [inbox] in
                inbox.post(.graceExpired(uid: uid, sessionId: sessionId))
            }
            scheduleExpiry(p, exp: session.expiresAt)
            observer.sessionAdopted(room: key, uid: uid)
        }
        Log.info("cluster", "\(key): took over \(record.sessions.count) session(s) from the channel's previous node")
    }

    /// The ids to give the tracks of a publish by `p`: a track it published on the channel's
    /// previous node (same kind and description, not published here yet) keeps its id.
    func resumedTrackIds(_ announced: [PublishTrack], of p: Participant) -> [String: String] {
        var ids: [String: String] = [:]
        var unbound = p.unboundTrackIds
        for t in announced {
            if let id = p.publishedTrackIds.first(where: { unbound.contains($0) && tracks[$0]?.kind == t.kind && tracks[$0]?.desc == t.desc }) {
                ids[t.mid] = id
                unbound.remove(id)
            }
        }
        return ids
    }

    /// Makes the subscriptions taken over from the previous node whose both sides are here now.
    func resubscribePending() async {
        for p in participants.values where p.connection != nil && !p.pendingSubscriptions.isEmpty {
            for (trackId, layer) in p.pendingSubscriptions {
                guard let track = tracks[trackId] else {
                    p.pendingSubscriptions[trackId] = nil
                    continue
                }
                guard let publisher = participants[track.uid], !publisher.unboundTrackIds.contains(trackId),
                      let publisherMedia = publisher.media, let media = await mediaOf(p) else { continue }
                p.pendingSubscriptions[trackId] = nil
                p.subscriptions[trackId] = .some(layer)
                do { try await media.subscribe(to: track, of: publisherMedia, layer: layer) } catch {
                    p.subscriptions[trackId] = nil
                    Log.warn("cluster", "\(key): could not subscribe \(p.uid) to \(trackId) again: \(error.message)")
                }
            }
        }
    }

    /// Gives the channel up (this node drains): the room closes without anyone leaving, each
    /// client gets `reconnect` and its WebSocket closes (1012, service restart). Returns the
    /// record to hand over.
    @discardableResult
    func handOff() async -> RoomRecord {
        let record = self.record
        handedOff = true
        guard !closed else { return record }
        closed = true
        inbox.finish()
        for p in participants.values {
            p.cancelTimers()
            p.send(.reconnect(ReconnectNotice(reason: "node_draining")))
            p.connection?.close(code: 1012, reason: "node draining")
            await p.media?.close()
            p.media = nil
            observer.sessionHandedOff(room: key, uid: p.uid)
        }
        participants = [:]
        if mediaPrepared { await media?.close() }
        return record
    }
}
