import SRTCProtocol

/// The rules of one channel, without I/O: where its connection stands, the join, leave and
/// resume lifecycle, which signaling connection is the live one, the users and tracks it knows,
/// and what observers are told, in which order; its publications and subscriptions are
/// `TrackMachine`'s (`tracks`), which it owns and feeds. `Channel` feeds it what happened (an answer, a
/// server event, a closed WebSocket, a timer) and carries out the actions it returns: sockets,
/// media, track objects, timers and delegate calls stay in `Channel`.
///
/// Time is passed in with each event (seconds on a monotonic clock); the machine reads no clock,
/// so `ChannelMachineTests` runs reconnections in virtual time. `Link` names a signaling
/// connection (`SignalLink` in the SDK, a number in tests); only equality matters.
struct ChannelMachine<Link: Equatable & Sendable>: Sendable, Equatable {
    // MARK: - Types

    /// What happened.
    enum Event: Sendable, Equatable {
        /// A signaling connection opened: the first join's (`attempt` nil) or a reconnection attempt's.
        case linkOpened(Link, attempt: Int?)
        /// The first join's `join` answered on `link`.
        case joinAnswered(JoinResponse, on: Link)
        /// The first join (or the CDN engine's `play`) failed before it was answered.
        case joinFailed
        /// A server event on the WebSocket `link`.
        case received(ServerEvent, on: Link)
        /// A server event over the data channel (docs/protocol.md, "Data messages"): not tied to a
        /// WebSocket, so never held or dropped as stale.
        case dataEvent(ServerEvent)
        /// The WebSocket `link` closed.
        case linkClosed(Link)
        /// The local address toward the server changed under the signaling connection
        /// (`Channel+NetworkChange`): its TCP connection is bound to the old address.
        case signalingPathMoved
        /// The timer of reconnection attempt `attempt` fired.
        case attemptDue(Int)
        /// Reconnection attempt `attempt` failed on `link` (nil: before a WebSocket opened).
        case attemptFailed(attempt: Int, link: Link?, error: SRTCError)
        /// The resume `join` of attempt `attempt` answered on `link`.
        case resumeAnswered(JoinResponse, on: Link, attempt: Int)
        /// The server answered one of the app's track requests (`TrackMachine.Event`), for
        /// example the publish of the session's tracks on a new node (`Channel+Move`).
        case track(TrackMachine.Event)
        /// `leave()` was called.
        case leave
        /// `leave` was sent (or could not be): end the session.
        case left
        /// The CDN engine's stream opened (`play`): `stream` is the user it shows.
        case streamOpened(ChannelInfo, stream: UserInfo)
        /// A reconnection attempt reopened the CDN stream.
        case streamReopened(attempt: Int)
        /// The CDN stream broke (reconnect) or finished (end).
        case streamLost
        case streamFinished
    }

    /// What the channel does, in this order.
    enum Action: Sendable, Equatable {
        /// Tell the observers (`ChannelDelegate`).
        case notify(Notice)
        /// Close this signaling connection.
        case close(Link)
        /// Send `join` on `link`, with `sessionId` to resume (attempt `attempt`; nil: the first join).
        case sendJoin(Link, Channel.JoinParameters, sessionId: String?, attempt: Int?)
        /// Send `leave` on `link` (when there is one), then report `.left`.
        case sendLeave(Link?)
        /// Fire `.attemptDue(attempt)` after `after` seconds.
        case scheduleAttempt(Int, after: Double)
        /// Open a new signaling connection (or reopen the CDN stream) for attempt `attempt`.
        case connect(attempt: Int)
        /// A resume made a new session instead (the server had ended ours): leave it, close `link`.
        case abandonSession(Link)
        /// Start the 250 ms ticker (receive timeouts, adaptive stream, network paths).
        case startTicker
        /// Act on the track objects (`TrackMachine`'s rules).
        case track(TrackMachine.Action)
        /// Answer the subscribe transport's offer.
        case answerSubscriberOffer(SessionDescriptionMessage)
        /// Forget what was kept to decrypt this user (E2EE).
        case forgetE2EE(uid: String)
        /// The TURN servers of this session changed.
        case updateRelay([ICEServer])
        /// The session moved to another node: close the old node's transports.
        case dropMovedMedia
        /// Publish the local tracks again on the new node (`.track(.republished)` when done).
        case republish
        /// Restart ICE on any transport whose path broke or moved meanwhile.
        case restartBrokenPaths
        /// Start the CDN stream that was just opened, or stop it: the channel left meanwhile.
        case startStream
        case discardStream
        /// End the session: remote tracks end, media and `closing` close, then `didDisconnect`.
        case tearDown(DisconnectReason, error: SRTCError?, closing: Link?)
    }

    /// What the observers are told (`ChannelDelegate`'s callbacks).
    enum Notice: Sendable, Equatable {
        case joined(ChannelInfo)
        case reconnecting
        case reconnected(ChannelInfo)
        case infoUpdated(ChannelInfo)
        case meUpdated(UserInfo)
        case userJoined(UserInfo)
        case userUpdated(UserInfo)
        case userLeft(uid: String, reason: DisconnectReason)
        case trackAdded(TrackInfo, by: UserInfo)
        case trackUpdated(TrackInfo, by: UserInfo)
        case trackRemoved(TrackInfo, by: UserInfo)
        case message(CustomMessage)
        case qualityReport(QualityReport)
        case connectionQuality(ConnectionQualityChange)
        case activeSpeakers(ActiveSpeakersSnapshot)
        case layerSwitched(LayerSwitchedInfo)
        case caption(Caption)
    }

    // MARK: - State

    private(set) var connection: Channel.ConnectionState = .disconnected
    private(set) var destroyed = false
    /// What `join` sent besides the session id (nil for the CDN engine).
    private(set) var parameters: Channel.JoinParameters?
    /// The live signaling connection, or the one a join / resume is using.
    private(set) var link: Link?
    private(set) var sessionId: String?
    // Set by the rules of `ChannelMachine+Roster` too (another file), hence not `private(set)`.
    var info: ChannelInfo?
    var me: UserInfo?
    /// Remote users in join order.
    var users: [UserInfo] = []
    /// Publishers that are not users (a server composite), with their tracks (`hidden_tracks`).
    var hiddenPublishers: [String: UserInfo] = [:]
    /// My publications, the remote tracks and my subscriptions to them (changed by
    /// `ChannelMachine+Roster` too).
    var tracks: TrackMachine
    /// The tracks that have a remote track object in `Channel` (made by `addRemoteTrack`).
    var remoteTrackIds: Set<String> { tracks.remote }
    /// TURN servers of the last join response, for the media transports.
    private(set) var iceServers: [ICEServer] = []
    /// Events that arrived while a join or resume was unanswered; replayed after its answer.
    private(set) var heldEvents: [ServerEvent]?
    /// The session moved to another node and the local tracks are not published there yet;
    /// retried after each resume until it succeeds.
    private(set) var republishPending = false
    private(set) var reconnect: ReconnectMachine
    let policy: ReconnectMachine.Policy

    /// - Parameters:
    ///   - policy: when to try reconnecting, and for how long.
    ///   - dynacast: whether the server's `layers_needed` is followed (`Configuration.dynacast`).
    init(policy: ReconnectMachine.Policy = .init(), dynacast: Bool = true) {
        self.policy = policy
        self.reconnect = ReconnectMachine(policy: policy)
        self.tracks = TrackMachine(dynacast: dynacast)
    }

    // MARK: - Commands

    /// `join` (with its parameters) or the CDN engine's `play` (nil) starts.
    mutating func begin(_ parameters: Channel.JoinParameters?) throws(SRTCError) {
        guard !destroyed else { throw .engineDestroyed }
        guard connection == .disconnected else { throw .wrongState("\(parameters == nil ? "play" : "join") while \(connection)") }
        connection = .connecting
        if let parameters {
            self.parameters = parameters
            heldEvents = []
        }
        reconnect = ReconnectMachine(policy: policy)
    }

    /// `destroy()`: no join after this one.
    mutating func destroy() {
        destroyed = true
    }

    // MARK: - Events

    /// Takes one event at time `now` (seconds, monotonic) and returns what to do, in order.
    mutating func handle(_ event: Event, now: Double) -> [Action] {
        switch event {
        case .linkOpened(let opened, let attempt):
            return linkOpened(opened, attempt: attempt)
        case .joinAnswered(let response, let answered):
            return joinAnswered(response, on: answered, now: now)
        case .joinFailed:
            let current = link
            link = nil
            connection = .disconnected
            heldEvents = nil
            return current.map { [.close($0)] } ?? []
        case .received(let event, let from):
            guard link == from else { return [] }  // a connection that is no longer the channel's
            if heldEvents != nil {
                heldEvents?.append(event)
                return []
            }
            return apply(event, now: now)
        case .dataEvent(let event):
            return apply(event, now: now)
        case .linkClosed(let closed):
            guard link == closed else { return [] }
            link = nil
            return follow(reconnect.connectionLost(now: now), error: nil)
        case .signalingPathMoved:
            // Resume on a new connection now (the resume restarts ICE on moved transports);
            // without a live connection, only the media paths are renewed.
            guard connection == .connected, let current = link else { return [.restartBrokenPaths] }
            link = nil
            return [.close(current)] + follow(reconnect.connectionLost(now: now), error: nil)
        case .attemptDue(let attempt):
            return reconnect.wantsAttempt(attempt) ? [.connect(attempt: attempt)] : []
        case .attemptFailed(let attempt, let failed, let error):
            let closing: [Action] = failed.map { [.close($0)] } ?? []
            guard reconnect.wantsAttempt(attempt) else { return closing }
            if link == failed { link = nil }
            heldEvents = nil
            let steps = reconnect.attemptFailed(now: now, fatal: Self.fatalReason(of: error), retrySoon: Self.isRetryAnswer(error))
            return closing + follow(steps, error: error)
        case .resumeAnswered(let response, let answered, let attempt):
            return resumeAnswered(response, on: answered, attempt: attempt, now: now)
        case .track(let answered):
            // Answers that arrive after the session ended change nothing (teardown unbound all).
            guard connection != .disconnected else { return [] }
            if case .republished = answered { republishPending = false }
            return tracks.handle(answered).map(Action.track)
        case .leave:
            guard connection != .disconnected else { return [] }
            reconnect.left()
            return [.sendLeave(link)]
        case .left:
            return tearDown(.clientLeave, error: nil)
        case .streamOpened(let info, let stream):
            guard connection == .connecting else { return [.discardStream] }
            self.info = info
            users = []
            tracks.reset()
            connection = .connected
            reconnect.joined(graceSeconds: 20)
            var actions: [Action] = [.startTicker, .notify(.joined(info))]
            actions += userJoined(stream)
            actions.append(.startStream)
            return actions
        case .streamReopened(let attempt):
            guard reconnect.wantsAttempt(attempt) else { return [.discardStream] }
            return [.startStream] + follow(reconnect.attemptSucceeded(resumed: true), error: nil)
        case .streamLost:
            return follow(reconnect.connectionLost(now: now), error: nil)
        case .streamFinished:
            return follow(reconnect.serverEnded(.channelClosed), error: nil)
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

    // MARK: - Join and resume

    private mutating func linkOpened(_ opened: Link, attempt: Int?) -> [Action] {
        guard let parameters else { return [.close(opened)] }
        if let attempt {
            guard reconnect.wantsAttempt(attempt) else { return [.close(opened)] }
        } else {
            guard connection == .connecting else { return [.close(opened)] }  // left while connecting
        }
        link = opened
        heldEvents = []
        return [.sendJoin(opened, parameters, sessionId: attempt == nil ? nil : sessionId, attempt: attempt)]
    }

    /// The first join's answer: state, then `joined`, then the users and tracks already there,
    /// then the events that arrived meanwhile. Without `joined` the join was abandoned (`leave`).
    private mutating func joinAnswered(_ response: JoinResponse, on answered: Link, now: Double) -> [Action] {
        guard connection == .connecting, link == answered else { return [.close(answered)] }
        sessionId = response.sessionId
        info = response.channel
        me = response.me
        iceServers = response.iceServers
        users = []
        hiddenPublishers = [:]
        tracks.reset()
        connection = .connected
        reconnect.joined(graceSeconds: response.reconnectGraceSeconds)
        let held = heldEvents ?? []
        heldEvents = nil
        var actions: [Action] = [.updateRelay(response.iceServers), .startTicker, .notify(.joined(response.channel))]
        for user in response.users { actions += userJoined(user) }
        for track in response.hiddenTracks { actions += trackAdded(track, uid: track.uid) }
        for event in held { actions += apply(event, now: now) }
        return actions
    }

    /// A resume's answer: users and tracks brought up to date, then the held events, then the
    /// media (published again after a move, else ICE restarted where a path broke).
    private mutating func resumeAnswered(_ response: JoinResponse, on answered: Link, attempt: Int, now: Double) -> [Action] {
        guard reconnect.wantsAttempt(attempt), link == answered else { return [.close(answered)] }
        let steps = reconnect.attemptSucceeded(resumed: response.resumed)
        guard response.resumed else {
            // The server had already ended the session: this join made a new one, which is left.
            return [.abandonSession(answered)] + follow(steps, error: .disconnected(.timeout))
        }
        iceServers = response.iceServers
        sessionId = response.sessionId
        let held = heldEvents ?? []
        heldEvents = nil
        var actions: [Action] = [.updateRelay(response.iceServers)]
        if response.moved == true {
            actions.append(.dropMovedMedia)
            // Nothing published: nothing to publish again.
            republishPending = !tracks.publications.isEmpty
        }
        actions += follow(steps, error: nil)
        actions += catchUp(with: response)
        for event in held { actions += apply(event, now: now) }
        actions.append(republishPending ? .republish : .restartBrokenPaths)
        return actions
    }

    // MARK: - Server events

    /// One server event's rules.
    private mutating func apply(_ event: ServerEvent, now: Double) -> [Action] {
        switch event {
        case .userJoined(let user): return userJoined(user)
        case .userUpdated(let user): return userUpdated(user)
        case .userLeft(let left): return userLeft(uid: left.uid, reason: left.reason)
        case .meUpdated(let user):
            me = user
            return [.notify(.meUpdated(user))]
        case .trackAdded(let e): return trackAdded(e.track, uid: e.uid)
        case .trackUpdated(let e): return trackUpdated(e.track, uid: e.uid)
        case .trackRemoved(let e): return trackRemoved(e.track.id, uid: e.uid)
        case .subscriberOffer(let offer): return [.answerSubscriberOffer(offer)]
        case .subscriptionEnded(let ended):
            return tracks.subscriptionEnded(ended.trackId).map(Action.track)
        case .message(let message): return [.notify(.message(message))]
        case .channelUpdated(let info):
            self.info = info
            return [.notify(.infoUpdated(info))]
        case .qualityReport(let report): return [.notify(.qualityReport(report))]
        case .connectionQuality(let change): return [.notify(.connectionQuality(change))]
        case .activeSpeakers(let snapshot): return [.notify(.activeSpeakers(snapshot))]
        case .layerSwitched(let info):
            return [.track(.setCurrentLayer(trackId: info.trackId, layer: info.layer)), .notify(.layerSwitched(info))]
        case .caption(let caption): return [.notify(.caption(caption))]
        case .layersNeeded(let needed): return tracks.layersNeeded(needed).map(Action.track)
        case .disconnected(let disconnected):
            return follow(reconnect.serverEnded(disconnected.reason), error: nil)
        case .reconnect:
            // The server's node is draining (`Channel+Move`): reconnect now, as after a drop.
            guard let current = link else { return [] }
            link = nil
            return [.close(current)] + follow(reconnect.connectionLost(now: now), error: nil)
        }
    }

    // MARK: - Reconnection

    /// Carries out the reconnect machine's steps; `error` goes with a final disconnect.
    private mutating func follow(_ steps: [ReconnectMachine.Action], error: SRTCError?) -> [Action] {
        var actions: [Action] = []
        for step in steps {
            switch step {
            case .notifyReconnecting:
                connection = .reconnecting
                actions.append(.notify(.reconnecting))
            case .attempt(let delay):
                guard let attempt = reconnect.currentAttempt else { continue }
                actions.append(.scheduleAttempt(attempt, after: delay))
            case .notifyReconnected:
                connection = .connected
                if let info { actions.append(.notify(.reconnected(info))) }
            case .disconnect(let reason):
                actions += tearDown(reason, error: error)
            }
        }
        return actions
    }

    /// Ends the session for good; once only.
    private mutating func tearDown(_ reason: DisconnectReason, error: SRTCError?) -> [Action] {
        guard connection != .disconnected else { return [] }
        connection = .disconnected
        reconnect.left()
        let closing = link
        link = nil
        users = []
        hiddenPublishers = [:]
        tracks.reset()
        heldEvents = nil
        return [.tearDown(reason, error: error, closing: closing)]
    }
}
