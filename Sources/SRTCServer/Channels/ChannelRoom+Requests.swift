import RTCCrypto
import RTCWire
import SRTCProtocol

extension ChannelRoom {
    /// Answers one request of a joined session. Requests from a replaced or closed session get
    /// `wrong_state`; nothing a request does can disturb another participant's state.
    func answer(_ request: ClientRequest, uid: String, sessionId: String, connection: SignalConnection) async -> Result<ResponseData, SignalError> {
        guard let p = participants[uid], p.sessionId == sessionId, p.connection === connection else {
            return .failure(SignalError(.wrongState, "this session is no longer in the channel"))
        }
        switch request.body {
        case .join:
            return .failure(SignalError(.wrongState, "already joined"))
        case .leave:
            await remove(p, reason: .clientLeave)
            return .success(.empty)
        case .ping:
            return .success(.pong(PongResponse(serverTime: clock.now())))
        case .publish(let r):
            return await publish(r, by: p)
        case .unpublish(let r):
            return await unpublish(r, by: p)
        case .mute(let r):
            return await mute(r, by: p)
        case .subscribe(let r):
            return await subscribe(r, by: p)
        case .setLayer(let r):
            return await setLayer(r, by: p)
        case .unsubscribe(let r):
            if p.pendingSubscriptions.removeValue(forKey: r.trackId) != nil { return .success(.empty) }
            guard p.subscriptions.removeValue(forKey: r.trackId) != nil else {
                return .failure(SignalError(.notFound, "not subscribed to \(r.trackId)"))
            }
            await p.media?.unsubscribe(trackId: r.trackId)
            return .success(.empty)
        case .subscriberAnswer(let r):
            guard let media = p.media else { return .failure(SignalError(.wrongState, "no subscriber offer was sent")) }
            do { try await media.applySubscriberAnswer(sdp: r.sdp, revision: r.revision) } catch { return .failure(error) }
            return .success(.empty)
        case .sendMessage(let r):
            return sendMessage(r, from: p)
        case .updateProfile(let r):
            return updateProfile(r, of: p)
        case .restartICE(let r):
            guard let media = p.media else { return .failure(SignalError(.wrongState, "no transport to restart")) }
            do {
                let answer = try await media.restartICE(r.transport, offer: r.sdp)
                return .success(answer.map { .answer(PublishResponse(sdp: $0, tracks: [])) } ?? .empty)
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: - Publishing

    func mediaOf(_ p: Participant) async -> ParticipantMedia? {
        if let m = p.media { return m }
        guard let media else { return nil }
        if !mediaPrepared {
            let preparation = mediaPreparation ?? Task { [key] in
                do throws(SignalError) { try await media.prepare(room: self) } catch {
                    Log.error("media", "\(key): \(error.message)")
                    return false
                }
                return true
            }
            mediaPreparation = preparation
            let prepared = await preparation.value
            mediaPreparation = nil
            guard prepared else { return nil }
            mediaPrepared = true
        }
        if let m = p.media { return m }  // another request created it while we awaited
        let m = await media.makeParticipant(uid: p.uid, joinedAt: p.joinedAt, events: inbox, relayedBy: p.connection?.relayingNode,
                                            anyVideoCodec: p.grant.serverPublisher)
        p.media = m
        return m
    }

    private func publish(_ r: PublishRequest, by p: Participant) async -> Result<ResponseData, SignalError> {
        guard p.grant.publish else { return .failure(SignalError(.permissionDenied, "token does not allow publish")) }
        guard p.publishedTrackIds.count + r.tracks.count <= limits.maxTracksPerUser else {
            return .failure(SignalError(.limitReached, "at most \(limits.maxTracksPerUser) tracks per user"))
        }
        guard Set(r.tracks.map(\.mid)).count == r.tracks.count else { return .failure(SignalError(.invalidParameter, "duplicate mid in tracks")) }
        for t in r.tracks {
            guard !t.desc.isEmpty, t.desc.utf8.count <= 64 else { return .failure(SignalError(.invalidParameter, "track desc must be 1 to 64 bytes")) }
            guard t.kind == .video || t.layers.isEmpty else { return .failure(SignalError(.invalidParameter, "only video tracks have layers")) }
        }
        // Hidden participants are the server's own egress workers: modules do not gate them (as on join).
        if !p.hidden, let refusal = await publishRefusal(r.tracks, uid: p.uid) { return .failure(refusal) }
        guard let media = await mediaOf(p) else { return .failure(SignalError(.internalError, "media is not available on this server")) }
        var ids = resumedTrackIds(r.tracks, of: p)
        for t in r.tracks where ids[t.mid] == nil { ids[t.mid] = "TR_" + SecureRandom.string(count: 12) }
        let produced = applyingHolds(r.tracks, uid: p.uid)
        let answer: String
        do { answer = try await media.publish(offer: r.sdp, tracks: produced, trackIds: ids) } catch { return .failure(error) }
        guard participants[p.uid] === p else { return .failure(SignalError(.wrongState, "left while publishing")) }
        var added: [TrackInfo] = []
        let answered = try? SessionDescription(parsing: answer)
        for (t, sent) in zip(r.tracks, produced) {
            // The codec name as in the answer's a=rtpmap ("opus", "VP8", "H264").
            let answeredCodec = answered?.media(mid: t.mid)?.codecs.first { !$0.isWrapper }
            let codec = answeredCodec?.name ?? (t.kind == .audio ? "opus" : "VP8")
            // H.264 Main or High: subscribers are offered that profile (Constrained Baseline is the default).
            let profile = answeredCodec?.h264Mode1Profile.flatMap { $0 == .constrainedBaseline ? nil : $0 }
            var info = TrackInfo(id: ids[t.mid]!, uid: p.uid, kind: t.kind, desc: t.desc, muted: t.muted, layers: t.layers,
                                 codec: codec, profileLevelID: profile.map { H264ProfileLevelID.level31($0).description },
                                 e2ee: t.e2ee == true ? true : nil)
            await startHeldIfNeeded(&info, producedMuted: sent.muted, of: p)
            tracks[info.id] = info
            added.append(info)
            if p.unboundTrackIds.remove(info.id) != nil {
                // Published again after a move: the others know it already (same id).
                continue
            }
            p.publishedTrackIds.append(info.id)
            broadcast(.trackAdded(TrackEvent(uid: p.uid, track: info)), except: p.uid)
            observer.trackPublished(room: key, uid: p.uid, track: info)
        }
        await resubscribePending()
        return .success(.answer(PublishResponse(sdp: answer, tracks: added)))
    }

    private func unpublish(_ r: UnpublishRequest, by p: Participant) async -> Result<ResponseData, SignalError> {
        guard p.publishedTrackIds.contains(r.trackId) else { return .failure(SignalError(.notFound, "you do not publish \(r.trackId)")) }
        var answer: String?
        if let media = p.media {
            do { answer = try await media.unpublish(trackId: r.trackId, offer: r.sdp) } catch { return .failure(error) }
        }
        await removeTrack(r.trackId, of: p, notifyPublisher: false)
        return .success(answer.map { .answer(PublishResponse(sdp: $0, tracks: [])) } ?? .empty)
    }

    private func mute(_ r: MuteRequest, by p: Participant) async -> Result<ResponseData, SignalError> {
        guard p.publishedTrackIds.contains(r.trackId), var track = tracks[r.trackId] else {
            return .failure(SignalError(.notFound, "you do not publish \(r.trackId)"))
        }
        if !r.muted, holds.isHeld(uid: p.uid, desc: track.desc) {
            return .failure(SignalError(.policyForbidden, "track \(r.trackId) is muted by the channel's owner"))
        }
        holds.setOwn(trackId: r.trackId, muted: r.muted)
        guard track.muted != r.muted else { return .success(.empty) }
        track.muted = r.muted
        tracks[r.trackId] = track
        await p.media?.setMuted(trackId: r.trackId, muted: r.muted)
        broadcast(.trackUpdated(TrackEvent(uid: p.uid, track: track)), except: p.uid)
        return .success(.empty)
    }

    // MARK: - Subscribing

    private func subscribe(_ r: SubscribeRequest, by p: Participant) async -> Result<ResponseData, SignalError> {
        guard p.grant.subscribe else { return .failure(SignalError(.permissionDenied, "token does not allow subscribe")) }
        guard let track = tracks[r.trackId] else { return .failure(SignalError(.notFound, "no track \(r.trackId)")) }
        guard track.uid != p.uid else { return .failure(SignalError(.invalidParameter, "cannot subscribe to your own track")) }
        if let layer = r.layer, !track.layers.isEmpty, !track.layers.contains(where: { $0.desc == layer }) {
            return .failure(SignalError(.invalidParameter, "track \(r.trackId) has no layer \(layer)"))
        }
        guard p.subscriptions[r.trackId] == nil, p.pendingSubscriptions[r.trackId] == nil else {
            return .failure(SignalError(.wrongState, "already subscribed to \(r.trackId)"))
        }
        if participants[track.uid]?.unboundTrackIds.contains(r.trackId) == true {
            // Its publisher moved here and has not sent it again yet: subscribed once it does.
            p.pendingSubscriptions[r.trackId] = .some(r.layer)
            return .success(.empty)
        }
        guard let publisher = participants[track.uid], let publisherMedia = publisher.media else {
            return .failure(SignalError(.notFound, "track \(r.trackId) has no media"))
        }
        if track.kind == .video, let codecs = p.videoCodecs, let codec = track.codec, !codecs.decodes(codec: codec, profileLevelID: track.profileLevelID) {
            // It could not decode the packets (or would answer the offer without the codec, an
            // H.264 profile it lacks): none are sent. Said after the response (posted).
            let uid = p.uid
            let trackId = r.trackId
            _ = inbox.post(job: { room in
                room.participants[uid]?.send(.subscriptionEnded(SubscriptionEnded(trackId: trackId, reason: "codec_unsupported")))
            })
            return .success(.empty)
        }
        guard let media = await mediaOf(p) else { return .failure(SignalError(.internalError, "media is not available on this server")) }
        p.subscriptions[r.trackId] = .some(r.layer)
        do {
            try await media.subscribe(to: track, of: publisherMedia, layer: r.layer)
        } catch {
            p.subscriptions[r.trackId] = nil
            return .failure(error)
        }
        return .success(.empty)
    }

    private func setLayer(_ r: SubscribeRequest, by p: Participant) async -> Result<ResponseData, SignalError> {
        guard p.subscriptions[r.trackId] != nil, let track = tracks[r.trackId] else {
            return .failure(SignalError(.notFound, "not subscribed to \(r.trackId)"))
        }
        // `none` pauses the subscription's video (a hidden tile, docs/protocol.md); any layer, or the best, resumes it.
        if r.layer == LayerSwitchedInfo.pausedLayer {
            guard track.kind == .video else { return .failure(SignalError(.invalidParameter, "track \(r.trackId) is audio: only video pauses")) }
        } else if let layer = r.layer, !track.layers.contains(where: { $0.desc == layer }) {
            return .failure(SignalError(.invalidParameter, "track \(r.trackId) has no layer \(layer)"))
        }
        p.subscriptions[r.trackId] = .some(r.layer)
        do { try await p.media?.setLayer(trackId: r.trackId, layer: r.layer) } catch { return .failure(error) }
        return .success(.empty)
    }

    // MARK: - Data

    private func sendMessage(_ r: SendMessageRequest, from p: Participant) -> Result<ResponseData, SignalError> {
        guard p.grant.publishData else { return .failure(SignalError(.permissionDenied, "token does not allow publish_data")) }
        guard r.data.utf8.count <= limits.maxCustomMessageBytes else {
            return .failure(SignalError(.payloadTooLarge, "message data exceeds \(limits.maxCustomMessageBytes) bytes"))
        }
        _ = deliverMessage(CustomMessage(from: p.uid, to: r.to?.isEmpty == true ? nil : r.to, data: r.data, timestamp: clock.now()))
        return .success(.empty)
    }

    private func updateProfile(_ r: ProfileUpdate, of p: Participant) -> Result<ResponseData, SignalError> {
        guard p.grant.publishData else { return .failure(SignalError(.permissionDenied, "token does not allow publish_data")) }
        if let custom = r.custom, custom.utf8.count > limits.maxCustomDataBytes {
            return .failure(SignalError(.payloadTooLarge, "custom exceeds \(limits.maxCustomDataBytes) bytes"))
        }
        if let nickname = r.nickname, nickname.count > 64 {
            return .failure(SignalError(.invalidParameter, "nickname must be at most 64 characters"))
        }
        if let n = r.nickname { p.nickname = n }
        if let c = r.custom { p.custom = c }
        let info = userInfo(p)
        p.send(.meUpdated(info))
        broadcast(.userUpdated(info), except: p.uid)
        return .success(.empty)
    }
}
