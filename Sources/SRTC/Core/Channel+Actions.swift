import Foundation
import RTCNet
import SRTCProtocol

/// A signaling connection as `ChannelMachine` sees it: equal only to itself.
struct SignalLink: Equatable, Sendable {
    let client: SignalClient

    static func == (a: SignalLink, b: SignalLink) -> Bool { a.client === b.client }
}

// The driver: what happened is fed to the machine on the queue, and its actions are carried out.
extension Channel {
    // MARK: - Feeding the machine

    /// Feeds one event to the machine and carries out its actions (on `queue`); returns them,
    /// for the flow that fed the event (join, a reconnection attempt, the CDN engine's play).
    @discardableResult
    func step(_ event: Machine.Event) -> [Machine.Action] {
        let actions = state.sync { $0.machine.handle(event, now: Monotonic.seconds()) }
        execute(actions)
        return actions
    }

    /// An event from `signal`; dropped by the machine when `signal` is no longer the channel's.
    func receive(_ event: ServerEvent, from signal: SignalClient) {
        switch event {
        case .disconnected(let disconnected):
            context.logger.info("server ended the session: \(disconnected.reason.rawValue) \(disconnected.message ?? "")")
        case .reconnect(let notice):
            context.logger.info("server asked to reconnect (\(notice.reason))")
        default:
            break
        }
        step(.received(event, on: SignalLink(client: signal)))
    }

    /// The signaling connection `signal` closed (on `queue`).
    func signalClosed(_ signal: SignalClient, reason: String) {
        if step(.linkClosed(SignalLink(client: signal))).contains(.notify(.reconnecting)) {
            context.logger.info("signaling connection lost (\(reason)); reconnecting")
        }
    }

    // MARK: - Carrying out

    /// Carries out the machine's actions in order (on `queue`).
    func execute(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .notify(let notice):
                notify(notice)
            case .close(let link):
                link.client.close()
            case .sendJoin, .sendLeave, .startStream, .discardStream:
                // The flow that fed the event does these (join, reconnect, leave, play).
                startOrDiscardStream(action)
            case .scheduleAttempt(let attempt, let delay):
                queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.step(.attemptDue(attempt)) }
            case .connect(let attempt):
                Task { await self.reconnect(attempt: attempt) }
            case .abandonSession(let link):
                Task { _ = try? await link.client.request(.leave, timeout: .seconds(2)); link.client.close() }
            case .startTicker:
                startTicker()
            case .track(let action):
                execute(action)
            case .answerSubscriberOffer(let offer):
                handleSubscriberOffer(offer)
            case .forgetE2EE(let uid):
                // What this client kept to decrypt the user (its keys' state, a reused buffer) goes.
                state.sync { $0.media?.e2ee }?.forget(uid: uid)
            case .updateRelay(let servers):
                state.sync { $0.media }?.relay.update(servers)
            case .dropMovedMedia:
                dropMovedMedia()
            case .republish:
                republishAfterMove()
            case .restartBrokenPaths:
                mediaAfterResume()
            case .tearDown(let reason, let error, let link):
                tearDown(reason, error: error, closing: link)
            }
        }
    }

    /// The CDN stream opened before the step: started, or stopped when the channel left meanwhile.
    private func startOrDiscardStream(_ action: Machine.Action) {
        guard action == .startStream || action == .discardStream,
              let opened = state.sync({ s -> (any LiveStream)? in
                  defer { s.openedStream = nil }
                  return s.openedStream
              }) else { return }
        if action == .startStream { startStream(opened) } else { opened.stop() }
    }

    /// Tells the observers, on the delegate queue.
    private func notify(_ notice: Machine.Notice) {
        switch notice {
        case .joined(let info): delegates.notify { [self] in $0.channel(self, didJoinSucceed: info) }
        case .reconnecting: delegates.notify { [self] in $0.channelIsReconnecting(self) }
        case .reconnected(let info): delegates.notify { [self] in $0.channel(self, didReconnect: info) }
        case .infoUpdated(let info): delegates.notify { [self] in $0.channel(self, didUpdateInfo: info) }
        case .meUpdated(let me): delegates.notify { [self] in $0.channel(self, meDidUpdate: me) }
        case .userJoined(let user): delegates.notify { [self] in $0.channel(self, userDidJoin: user) }
        case .userUpdated(let user): delegates.notify { [self] in $0.channel(self, userDidUpdate: user) }
        case .userLeft(let uid, let reason): delegates.notify { [self] in $0.channel(self, userDidLeave: uid, reason: reason) }
        case .trackAdded(let info, let user): delegates.notify { [self] in $0.channel(self, user: user, didAddTrack: info) }
        case .trackUpdated(let info, let user): delegates.notify { [self] in $0.channel(self, user: user, didUpdateTrack: info) }
        case .trackRemoved(let info, let user): delegates.notify { [self] in $0.channel(self, user: user, didRemoveTrack: info) }
        case .message(let message): delegates.notify { [self] in $0.channel(self, didReceiveCustomMessage: message) }
        case .qualityReport(let report): delegates.notify { [self] in $0.channel(self, didReceiveQualityReport: report) }
        case .connectionQuality(let change): delegates.notify { [self] in $0.channel(self, didChangeConnectionQuality: change) }
        case .activeSpeakers(let snapshot): delegates.notify { [self] in $0.channel(self, didChangeActiveSpeakers: snapshot) }
        case .layerSwitched(let info): delegates.notify { [self] in $0.channel(self, didSwitchLayer: info) }
        case .caption(let caption): delegates.notify { [self] in $0.channel(self, didReceiveCaption: caption) }
        }
    }

    // MARK: - Teardown

    /// Ends the session for good (on `queue`, once: the machine says when): every remote track
    /// ends, media closes, observers get `didDisconnect`.
    private func tearDown(_ reason: DisconnectReason, error: SRTCError?, closing link: SignalLink?) {
        stopStream()
        let (remote, local, ticker, media) = state.sync { s in
            defer {
                s.remoteTracks = [:]
                s.localTracks = [:]
                s.previewSent = nil
                s.ticker = nil
                s.media = nil
            }
            return (Array(s.remoteTracks.values), Array(s.localTracks.values), s.ticker, s.media)
        }
        ticker?.cancel()
        media?.close()
        for track in remote {
            if track.isSubscribed { track.setSubscribed(false, layer: nil) }
            track.end()
        }
        for track in local { track.didUnpublish(from: self) }
        link?.client.close()
        context.logger.info("left channel (\(reason.rawValue))")
        delegates.notify { [self] in $0.channel(self, didDisconnect: reason, error: error) }
    }
}
