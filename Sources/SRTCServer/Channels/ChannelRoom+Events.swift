import RTCCrypto
import SRTCProtocol

/// What reaches the room without a request: the timers a session arms (the resume grace period,
/// the token's expiry), which post `RoomEvent`s to the inbox, and the media events of the SFU,
/// each applied in the order posted.
extension ChannelRoom {
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
            guard let track = tracks[trackId] else { return }
            // A single stream's one layer (video paused and resumed for bandwidth) has no name in
            // the SFU's event (`LayerSwitch.oneLayer`): it is named by the track's `desc`, as a
            // simulcast track's best layer is (docs/protocol.md, `layer_switched`).
            let name = { (name: String) in name.isEmpty ? track.desc : name }
            let info = LayerSwitchedInfo(uid: track.uid, trackId: trackId, layer: name(layer), previous: previous.map(name), cause: cause)
            if subscriber.hasPrefix(EdgeRelay.subscriberPrefix) {
                // A relay to another node switched: every session that node serves the track to sees it.
                let node = String(subscriber.dropFirst(EdgeRelay.subscriberPrefix.count))
                for p in participants.values where p.subscriptions[trackId] != nil && (p.media as? EdgeParticipantMedia)?.servingNode == node {
                    p.send(.layerSwitched(info))
                }
            } else if subscriber.hasPrefix(WorkerRelay.subscriberPrefix) {
                // A relay to another media worker switched: every session that worker serves the track to sees it.
                let worker = Int(subscriber.dropFirst(WorkerRelay.subscriberPrefix.count))
                for p in participants.values where p.subscriptions[trackId] != nil && (p.media as? PipedParticipantMedia)?.servingWorker == worker {
                    p.send(.layerSwitched(info))
                }
            } else {
                participants[subscriber]?.send(.layerSwitched(info))
            }
        case .layersNeeded(let trackId, let layers):
            guard let publisher = tracks[trackId]?.uid else { return }
            participants[publisher]?.send(.layersNeeded(LayersNeeded(trackId: trackId, layers: layers)))
        case .activeSpeakers(let snapshot):
            // A hidden participant (a composite publishing the mix) is never a speaker; the list
            // goes out only when what users see of it changed.
            let visible = ActiveSpeakersSnapshot(speakers: snapshot.speakers.filter { participants[$0.uid]?.hidden != true })
            guard visible != lastSpeakers else { return }
            lastSpeakers = visible
            broadcast(.activeSpeakers(visible))
        case .qualityReport(let report, let source):
            guard let p = participants[report.uid] else { return }
            for merged in quality.add(report, from: source) { p.send(.qualityReport(merged)) }
        case .connectionQuality(let change, let source):
            guard participants[change.uid] != nil, let change = quality.add(change, from: source) else { return }
            broadcast(.connectionQuality(change))
        case .dataChannelOpened(let uid, let owner, let connection):
            // A late event of an earlier session's media finds another owner.
            guard let p = participants[uid], let media = p.media, media.eventOwner == owner else { return }
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
        case .mediaFailed(let uid, let owner):
            // A session without a socket of its own (WHIP, WHEP) has no other sign of life: its
            // media failing ends it, as a dropped WebSocket's grace period ends a client's.
            guard let p = participants[uid], let media = p.media, ObjectIdentifier(media) == owner,
                  p.connection?.endsWhenMediaFails == true else { return }
            await end(p, reason: .timeout, message: "media connection lost")
        }
    }
}
