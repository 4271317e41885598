import Foundation
import RTCNet
import SRTCProtocol

// Server events: each updates the channel's state on its queue, then tells the observers.
extension Channel {
    // MARK: - Join

    /// Applies the first join's response: state, then `didJoinSucceed`, then the users and
    /// tracks already there, then the events that arrived meanwhile. Runs on `queue`.
    /// Returns false when the join was abandoned meanwhile (`leave()` during `join`).
    func applyFirstJoin(_ response: JoinResponse, signal: SignalClient) -> Bool {
        let held: [ServerEvent]? = state.withLock { s in
            guard s.connection == .connecting, s.signal === signal else { return nil }
            s.sessionId = response.sessionId
            s.info = response.channel
            s.me = response.me
            s.iceServers = response.iceServers
            s.media?.relay.update(response.iceServers)
            s.users = []
            s.hiddenPublishers = [:]
            s.remoteTracks = [:]
            s.connection = .connected
            s.reconnect.joined(graceSeconds: response.reconnectGraceSeconds)
            defer { s.heldEvents = nil }
            return s.heldEvents ?? []
        }
        guard let held else { return false }
        startTicker()
        let info = response.channel
        delegates.notify { [self] in $0.channel(self, didJoinSucceed: info) }
        for user in response.users { userJoined(user) }
        for track in response.hiddenTracks { trackAdded(track, uid: track.uid) }
        for event in held { handle(event) }
        return true
    }

    // MARK: - Events

    /// An event from `signal`; dropped when `signal` is no longer the channel's connection.
    func receive(_ event: ServerEvent, from signal: SignalClient) {
        let hold = state.withLock { s -> Bool in
            guard s.signal === signal else { return true } // stale connection: drop below
            if s.heldEvents != nil {
                s.heldEvents?.append(event)
                return true
            }
            return false
        }
        guard !hold else { return }
        handle(event)
    }

    /// Dispatches one event (on `queue`).
    func handle(_ event: ServerEvent) {
        switch event {
        case .userJoined(let user):
            userJoined(user)
        case .userUpdated(let user):
            userUpdated(user)
        case .userLeft(let left):
            userLeft(uid: left.uid, reason: left.reason)
        case .meUpdated(let user):
            state.withLock { $0.me = user }
            delegates.notify { [self] in $0.channel(self, meDidUpdate: user) }
        case .trackAdded(let e):
            trackAdded(e.track, uid: e.uid)
        case .trackUpdated(let e):
            trackUpdated(e.track, uid: e.uid)
        case .trackRemoved(let e):
            trackRemoved(e.track.id, uid: e.uid)
        case .subscriberOffer(let offer):
            handleSubscriberOffer(offer)
        case .subscriptionEnded(let ended):
            if let track = remoteTrack(trackId: ended.trackId) {
                track.setSubscribed(false, layer: nil)
                mediaSubscriptionEnded(track)
            }
        case .message(let message):
            delegates.notify { [self] in $0.channel(self, didReceiveCustomMessage: message) }
        case .channelUpdated(let info):
            state.withLock { $0.info = info }
            delegates.notify { [self] in $0.channel(self, didUpdateInfo: info) }
        case .qualityReport(let report):
            delegates.notify { [self] in $0.channel(self, didReceiveQualityReport: report) }
        case .connectionQuality(let change):
            delegates.notify { [self] in $0.channel(self, didChangeConnectionQuality: change) }
        case .activeSpeakers(let snapshot):
            delegates.notify { [self] in $0.channel(self, didChangeActiveSpeakers: snapshot) }
        case .layerSwitched(let info):
            (remoteTrack(trackId: info.trackId) as? RemoteVideoTrack)?.setCurrentLayer(info.layer)
            delegates.notify { [self] in $0.channel(self, didSwitchLayer: info) }
        case .caption(let caption):
            delegates.notify { [self] in $0.channel(self, didReceiveCaption: caption) }
        case .layersNeeded(let needed):
            // Dynacast: layers nobody receives stop being encoded, and come back with a key frame.
            guard context.configuration.dynacast else { break }
            let (media, track) = state.withLock { ($0.media, $0.localTracks[needed.trackId]) }
            if let media, let track { media.publish.setNeededLayers(of: track, layers: needed.layers) }
        case .disconnected(let disconnected):
            let actions = state.withLock { $0.reconnect.serverEnded(disconnected.reason) }
            context.logger.info("server ended the session: \(disconnected.reason.rawValue) \(disconnected.message ?? "")")
            perform(actions, error: nil)
        case .reconnect(let notice):
            serverAskedToReconnect(notice)
        }
    }

    // MARK: - Users

    func userJoined(_ user: UserInfo) {
        guard user.uid != uid else { return }
        let existed = state.withLock { s -> Bool in
            if let index = s.users.firstIndex(where: { $0.uid == user.uid }) {
                s.users[index] = user
                return true
            }
            s.users.append(user)
            return false
        }
        if !existed { delegates.notify { [self] in $0.channel(self, userDidJoin: user) } }
        for track in user.tracks { trackAdded(track, uid: user.uid) }
    }

    func userUpdated(_ user: UserInfo) {
        let known = state.withLock { s -> Bool in
            guard let index = s.users.firstIndex(where: { $0.uid == user.uid }) else { return false }
            s.users[index].nickname = user.nickname
            s.users[index].custom = user.custom
            return true
        }
        guard known, let updated = self.user(uid: user.uid) else { return }
        delegates.notify { [self] in $0.channel(self, userDidUpdate: updated) }
    }

    func userLeft(uid: String, reason: DisconnectReason) {
        guard let user = self.user(uid: uid) else { return }
        for track in user.tracks { trackRemoved(track.id, uid: uid) }
        let e2ee = state.withLock { s in
            s.users.removeAll { $0.uid == uid }
            return s.media?.e2ee
        }
        // What this client kept to decrypt the user (its keys' state, a reused buffer) goes
        // with it; a return starts afresh, as for a new participant.
        e2ee?.forget(uid: uid)
        delegates.notify { [self] in $0.channel(self, userDidLeave: uid, reason: reason) }
    }

    // MARK: - Tracks

    /// A track of a user, or of a hidden publisher (a server composite): a uid that is in no user
    /// list gets a `UserInfo` of its own, kept in `hiddenPublishers` and never in `users`.
    func trackAdded(_ info: TrackInfo, uid: String) {
        let added = state.withLock { s -> (UserInfo, RemoteTrack)? in
            guard s.remoteTracks[info.id] == nil, uid != s.me?.uid else { return nil }
            let user = Self.editPublisher(uid, in: &s) { user in
                if !user.tracks.contains(where: { $0.id == info.id }) { user.tracks.append(info) }
            }
            let track = makeRemoteTrack(info)
            s.remoteTracks[info.id] = track
            return (user, track)
        }
        guard let (user, track) = added else { return }
        resumeTrackWaiters(for: track)
        delegates.notify { [self] in $0.channel(self, user: user, didAddTrack: info) }
    }

    func trackUpdated(_ info: TrackInfo, uid: String) {
        let updated = state.withLock { s -> (UserInfo, RemoteTrack?)? in
            guard s.users.contains(where: { $0.uid == uid }) || s.hiddenPublishers[uid] != nil else { return nil }
            let user = Self.editPublisher(uid, in: &s) { user in
                if let t = user.tracks.firstIndex(where: { $0.id == info.id }) { user.tracks[t] = info } else { user.tracks.append(info) }
            }
            return (user, s.remoteTracks[info.id])
        }
        guard let (user, track) = updated else { return }
        track?.update(info: info)
        delegates.notify { [self] in $0.channel(self, user: user, didUpdateTrack: info) }
    }

    /// Applies `change` to the user `uid`, or to the hidden publisher `uid` (made when absent, and
    /// forgotten once it has no track left); returns the result.
    static func editPublisher(_ uid: String, in s: inout State, _ change: (inout UserInfo) -> Void) -> UserInfo {
        if let index = s.users.firstIndex(where: { $0.uid == uid }) {
            change(&s.users[index])
            return s.users[index]
        }
        var hidden = s.hiddenPublishers[uid] ?? UserInfo(uid: uid, joinedAt: 0)
        change(&hidden)
        s.hiddenPublishers[uid] = hidden.tracks.isEmpty ? nil : hidden
        return hidden
    }

    func trackRemoved(_ trackId: String, uid: String) {
        let removed = state.withLock { s -> (UserInfo, TrackInfo, RemoteTrack?)? in
            let known = s.users.first(where: { $0.uid == uid }) ?? s.hiddenPublishers[uid]
            guard let t = known?.tracks.firstIndex(where: { $0.id == trackId }) else { return nil }
            var info: TrackInfo?
            let user = Self.editPublisher(uid, in: &s) { info = $0.tracks.remove(at: t) }
            guard let info else { return nil }
            return (user, info, s.remoteTracks.removeValue(forKey: trackId))
        }
        guard let (user, info, track) = removed else { return }
        if let track {
            if track.isSubscribed {
                track.setSubscribed(false, layer: nil)
                mediaSubscriptionEnded(track)
            }
            track.end()
        }
        delegates.notify { [self] in $0.channel(self, user: user, didRemoveTrack: info) }
    }

    func makeRemoteTrack(_ info: TrackInfo) -> RemoteTrack {
        switch info.kind {
        case .audio:
            return RemoteAudioTrack(info: info, context: context)
        case .video:
            let track = RemoteVideoTrack(info: info, context: context, receiveTimeout: context.configuration.receiveTimeout)
            track.statusHandler.set { [weak self] track, timedOut in self?.reportReceiveStatus(track, timedOut: timedOut) }
            return track
        }
    }

    func reportReceiveStatus(_ track: RemoteVideoTrack, timedOut: Bool) {
        let status = ReceiveStreamStatus(uid: track.uid, trackId: track.id, desc: track.desc, timedOut: timedOut)
        delegates.notify { [self] in $0.channel(self, didChangeReceiveStreamStatus: status) }
    }

    // MARK: - Ticker: receive timeouts, network paths

    /// Adaptive stream: asks the server for what the track's renderers need (`set_layer`, docs/protocol.md).
    private func requestAdaptiveLayer(_ track: RemoteVideoTrack, _ choice: AdaptiveLayerChoice) {
        track.adaptiveChoiceSent(choice)
        Task { [weak self] in
            guard let self, let signal = try? liveSignal() else { return track.adaptiveRequestFailed(choice) }
            do {
                try await signal.request(.setLayer(SubscribeRequest(trackId: track.id, layer: choice.requestValue)))
                switch choice {
                case .paused: break
                case .best: track.setRequestedLayer(nil)
                case .layer(let desc): track.setRequestedLayer(VideoLayer(rawValue: desc))
                }
                context.logger.debug("adaptive stream: \(track.id) → \(choice.requestValue ?? "best")")
            } catch {
                track.adaptiveRequestFailed(choice)
                context.logger.warning("adaptive stream: set_layer \(track.id) failed: \(error)")
            }
        }
    }

    func startTicker() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = Monotonic.seconds()
            let adaptive = context.configuration.adaptiveStream && engineType == .sfu
            for case let track as RemoteVideoTrack in state.withLock({ Array($0.remoteTracks.values) }) where track.isSubscribed {
                if adaptive, let choice = track.adaptiveTick() { requestAdaptiveLayer(track, choice) }
                track.tick(now: now)
            }
            if engineType == .sfu { watchNetworkPaths() }
        }
        let old = state.withLock { s -> DispatchSourceTimer? in
            defer { s.ticker = timer }
            return s.ticker
        }
        old?.cancel()
        timer.resume()
    }
}
