import Foundation
import RTCNet
import SRTCProtocol

// Losing the signaling connection: resume the session within the server's grace period, or end.
extension Channel {
    /// The signaling connection `signal` closed (on `queue`).
    func signalClosed(_ signal: SignalClient, reason: String) {
        let actions = state.withLock { s -> [ReconnectMachine.Action] in
            guard s.signal === signal else { return [] }
            s.signal = nil
            return s.reconnect.connectionLost(now: Monotonic.seconds())
        }
        if !actions.isEmpty { context.logger.info("signaling connection lost (\(reason)); reconnecting") }
        perform(actions, error: nil)
    }

    /// Carries out the reconnect machine's actions (on `queue`).
    func perform(_ actions: [ReconnectMachine.Action], error: Error?) {
        for action in actions {
            switch action {
            case .notifyReconnecting:
                state.withLock { $0.connection = .reconnecting }
                delegates.notify { [self] in $0.channelIsReconnecting(self) }
            case .attempt(let delay):
                guard let attempt = state.withLock({ $0.reconnect.currentAttempt }) else { continue }
                queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                    guard let self else { return }
                    Task { await self.reconnect(attempt: attempt) }
                }
            case .notifyReconnected:
                state.withLock { $0.connection = .connected }
                guard let info = self.info else { continue }
                delegates.notify { [self] in $0.channel(self, didReconnect: info) }
            case .disconnect(let reason):
                teardown(reason: reason, error: error)
            }
        }
    }

    /// One reconnection attempt: a new WebSocket and `join` with the session id.
    func reconnect(attempt: Int) async {
        if engineType == .cdn { return await reopenStream(attempt: attempt) }
        let (wanted, parameters, sessionId) = state.withLock { ($0.reconnect.wantsAttempt(attempt), $0.parameters, $0.sessionId) }
        guard wanted, let parameters else { return }
        context.logger.debug("reconnect attempt \(attempt + 1)")
        var signal: SignalClient?
        do throws(SRTCError) {
            let connection = try await SignalClient.connect(url: parameters.webSocketURL, tls: context.configuration.tls, timeout: .seconds(5))
            signal = connection
            let stillWanted = state.withLock { s -> Bool in
                guard s.reconnect.wantsAttempt(attempt) else { return false }
                s.signal = connection
                s.heldEvents = []
                return true
            }
            guard stillWanted else { connection.close(); return }
            startListening(to: connection)
            let response = try await requestJoin(on: connection, parameters: parameters, sessionId: sessionId)
            await onQueue { [self] in resumed(response, signal: connection, attempt: attempt) }
        } catch {
            let failed = signal
            await onQueue { [self] in
                let actions = state.withLock { s -> [ReconnectMachine.Action] in
                    guard s.reconnect.wantsAttempt(attempt) else { return [] }
                    if s.signal === failed { s.signal = nil }
                    s.heldEvents = nil
                    return s.reconnect.attemptFailed(now: Monotonic.seconds(), fatal: Self.fatalReason(of: error),
                                                     retrySoon: Self.isRetryAnswer(error))
                }
                context.logger.warning("reconnect attempt \(attempt + 1) failed: \(error)")
                failed?.close()
                perform(actions, error: error)
            }
        }
    }

    /// The server answered but asked to be asked again: `internal_error` (50001) is what a node
    /// answers while the channel's node cannot be reached or the channel is moving, and what a
    /// draining node refuses WebSockets with (docs/deploy.md, "Drain and failover").
    static func isRetryAnswer(_ error: SRTCError) -> Bool {
        error.serverCode == .internalError
    }

    /// A refusal no retry can fix ends the session at once.
    static func fatalReason(of error: SRTCError) -> DisconnectReason? {
        guard let code = error.serverCode else { return nil }
        switch code {
        case .tokenExpired: return .tokenExpired
        case .invalidToken, .tokenNotYetValid, .permissionDenied, .invalidParameter: return .error
        default: return nil
        }
    }

    /// The resume `join` answered (on `queue`): bring users and tracks up to date, then events flow again.
    private func resumed(_ response: JoinResponse, signal: SignalClient, attempt: Int) {
        let (wanted, actions) = state.withLock { s -> (Bool, [ReconnectMachine.Action]) in
            guard s.reconnect.wantsAttempt(attempt), s.signal === signal else { return (false, []) }
            return (true, s.reconnect.attemptSucceeded(resumed: response.resumed))
        }
        guard wanted else { signal.close(); return }
        guard response.resumed else {
            // The server had already ended the session: this join made a new one, which is left.
            Task { _ = try? await signal.request(.leave, timeout: .seconds(2)); signal.close() }
            perform(actions, error: SRTCError.disconnected(.timeout))
            return
        }
        let held: [ServerEvent] = state.withLock { s in
            s.iceServers = response.iceServers
            s.media?.relay.update(response.iceServers)
            s.sessionId = response.sessionId
            defer { s.heldEvents = nil }
            return s.heldEvents ?? []
        }
        if response.moved == true { dropMovedMedia() }
        perform(actions, error: nil)
        catchUp(with: response)
        for event in held { handle(event) }
        if state.withLock({ $0.republishPending }) { republishAfterMove() } else { mediaAfterResume() }
    }

    /// Events dropped while the connection was down are replayed as the difference between the
    /// state we knew and the resume response. Users that left meanwhile are reported with
    /// `.clientLeave` (the real reason was not kept by the server).
    private func catchUp(with response: JoinResponse) {
        let (oldInfo, oldMe, oldUsers) = state.withLock { ($0.info, $0.me, $0.users) }
        if oldInfo != response.channel {
            state.withLock { $0.info = response.channel }
            let info = response.channel
            delegates.notify { [self] in $0.channel(self, didUpdateInfo: info) }
        }
        if oldMe?.nickname != response.me.nickname || oldMe?.custom != response.me.custom {
            let me = response.me
            state.withLock { $0.me = me }
            delegates.notify { [self] in $0.channel(self, meDidUpdate: me) }
        }
        let fresh = Dictionary(response.users.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        for old in oldUsers where fresh[old.uid] == nil || fresh[old.uid]?.joinedAt != old.joinedAt {
            userLeft(uid: old.uid, reason: .clientLeave)
        }
        for user in response.users {
            guard let old = self.user(uid: user.uid) else {
                userJoined(user)
                continue
            }
            if old.nickname != user.nickname || old.custom != user.custom { userUpdated(user) }
            catchUpTracks(of: user.uid, known: old.tracks, now: user.tracks)
        }
        // Hidden publishers (server composites): only their tracks.
        let oldHidden = state.withLock { $0.hiddenPublishers }
        let freshHidden = Dictionary(grouping: response.hiddenTracks, by: \.uid)
        for uid in Set(oldHidden.keys).union(freshHidden.keys) {
            catchUpTracks(of: uid, known: oldHidden[uid]?.tracks ?? [], now: freshHidden[uid] ?? [])
        }
    }

    /// Reports the difference between the tracks of `uid` we knew and those the server has now.
    private func catchUpTracks(of uid: String, known: [TrackInfo], now: [TrackInfo]) {
        let newIds = Set(now.map(\.id))
        for track in known where !newIds.contains(track.id) { trackRemoved(track.id, uid: uid) }
        for track in now {
            if let old = known.first(where: { $0.id == track.id }) {
                if old != track { trackUpdated(track, uid: uid) }
            } else {
                trackAdded(track, uid: uid)
            }
        }
    }

    // MARK: - Teardown

    /// Ends the session for good (on `queue`): every remote track ends, media closes, observers
    /// get `didDisconnect`. Idempotent.
    func teardown(reason: DisconnectReason, error: Error?) {
        stopStream()
        let ended = state.withLock { s -> (SignalClient?, [RemoteTrack], [LocalTrack], DispatchSourceTimer?, ChannelMedia?)? in
            guard s.connection != .disconnected else { return nil }
            s.connection = .disconnected
            s.reconnect.left()
            defer {
                s.signal = nil
                s.remoteTracks = [:]
                s.localTracks = [:]
                s.previewSent = nil
                s.users = []
                s.hiddenPublishers = [:]
                s.ticker = nil
                s.media = nil
                s.heldEvents = nil
            }
            return (s.signal, Array(s.remoteTracks.values), Array(s.localTracks.values), s.ticker, s.media)
        }
        guard let (signal, remote, local, ticker, media) = ended else { return }
        ticker?.cancel()
        media?.close()
        for track in remote {
            if track.isSubscribed { track.setSubscribed(false, layer: nil) }
            track.end()
        }
        for track in local { track.didUnpublish(from: self) }
        signal?.close()
        context.logger.info("left channel (\(reason.rawValue))")
        delegates.notify { [self] in $0.channel(self, didDisconnect: reason, error: error) }
    }
}
