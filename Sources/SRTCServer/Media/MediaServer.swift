import Foundation
import RTCNet
import RTCTransport
import RTCWire
import SFU
import SRTCProtocol
import Synchronization

/// The server's media plane: its media workers (one `SFUWorker` each, on a UDP port of its own;
/// docs/architecture.md, "Media workers"), the DTLS certificate every transport presents, the
/// placement of channels on workers, and the routing of SFU events back to channel rooms: each
/// event is posted to its room's inbox on the worker's I/O thread, as it is raised, so a room
/// applies its SFU events in the order the SFU raised them (a room's router is on one worker).
final class MediaServer: SFUListener, Sendable {
    /// Worker `i` listens on `--udp-port` + i (and `--ice-tcp-port` + i), or on ports of its own
    /// when those are 0.
    let workers: [MediaWorker]
    let certificate: DTLSCertificate
    /// Participants of one channel its worker serves before others go to another worker
    /// (`--worker-subscriber-budget`; 0: no limit).
    let subscriberBudget: Int
    /// Which video codec publishers' offers are answered with (`--video-codecs`).
    let publishVideoCodecs: VideoCodecPreference

    /// Where SFU events go: rooms' inboxes by router, subscribers by consumer.
    private struct Routes {
        /// Rooms' inboxes, and the event sinks of channels relayed here (`EdgeChannel`).
        var rooms: [RouterID: any MediaEventSink] = [:]
        var consumers: [ConsumerID: (room: RouterID, uid: String, trackId: String)] = [:]
        /// Transports with data channels: their room, participant and `ParticipantMedia`.
        var transports: [TransportID: (room: RouterID, uid: String, owner: ObjectIdentifier)] = [:]
    }
    private let routes = Mutex(Routes())

    /// - Parameters:
    ///   - port: the first worker's UDP port; worker i binds `port + i` (0: each picks one).
    ///   - tcpPort: the ICE-TCP port (`--ice-tcp-port`; 0 picks one), `nil` for UDP only; worker
    ///     i binds `tcpPort + i` like the UDP ports.
    ///   - workers: how many media workers (threads) to run, at least 1 (`--media-workers`).
    ///   - speedTest: answers speed-test datagrams on the first worker's port, when given.
    ///   - threadPriority: asked for the I/O threads (`--media-thread-priority`); a warning says
    ///     when the kernel allowed less.
    ///   - subscriberBudget: participants of one channel its worker serves before the next ones
    ///     are served by another worker (`--worker-subscriber-budget`; 0: no limit).
    ///   - publishVideoCodecs: the order in which a publisher's video codec is picked (`--video-codecs`).
    init(bind: String, port: UInt16, tcpPort: UInt16? = nil, workers count: Int = 1, publicIP: String?,
         qualityIntervalSeconds: Double, speedTest: SpeedTestResponder? = nil, threadPriority: IOThreadPriority = .normal,
         subscriberBudget: Int = 0, publishVideoCodecs: VideoCodecPreference = .offerOrder) throws {
        self.subscriberBudget = subscriberBudget
        self.publishVideoCodecs = publishVideoCodecs
        guard let address = SocketAddress(ip: bind, port: port) else { throw ConfigError.invalidValue("bind", bind) }
        let count = max(1, count)
        for base in [port, tcpPort ?? 0] where base != 0 && Int(base) + count - 1 > Int(UInt16.max) {
            throw ConfigError.invalidValue("media-workers", "\(count) workers need ports \(base)…\(Int(base) + count - 1)")
        }
        var configuration = SFUConfiguration()
        configuration.qualityIntervalDuration = .milliseconds(Int64(qualityIntervalSeconds * 1000))
        configuration.ioThreadPriority = threadPriority
        certificate = try DTLSCertificate(commonName: "srtc-server")
        var made: [MediaWorker] = []
        do {
            for index in 0 ..< count {
                let udp = address.with(port: port == 0 ? 0 : port + UInt16(index))
                let tcp = tcpPort.map { address.with(port: $0 == 0 ? 0 : $0 + UInt16(index)) }
                let announced: [String]
                if let publicIP {
                    announced = [publicIP]
                } else if bind == "0.0.0.0" || bind == "::" {
                    announced = ICECandidate.hostCandidates(for: udp, includeLoopback: true).map(\.address.ipString)
                } else {
                    announced = [bind]
                }
                made.append(try MediaWorker(index: index, bind: udp, tcpBind: tcp, announced: announced,
                                            configuration: configuration))
            }
        } catch {
            for worker in made { worker.sfu.stop() }
            throw error
        }
        workers = made
        for worker in made { worker.sfu.setListener(self) }
        let first = made[0].sfu.port
        first.execute {
            guard let applied = first.ioThreadPriority, applied < threadPriority else { return }
            Log.warn("media", "media thread priority \(threadPriority.rawValue) not allowed (needs CAP_SYS_NICE or RLIMIT_RTPRIO); runs at \(applied.rawValue)")
        }
        if let speedTest { first.setService(speedTest) }
    }

    /// The first worker's UDP port (the speed test's, and the only one with one worker).
    var udpPort: UInt16 { workers[0].udpPort }
    /// Every worker's announced UDP addresses (`ip port`): what this node registers as its own
    /// (`NodeInfo.mediaAddresses`), so a relay's uplink may point at any of its workers.
    var udpAddresses: [String] { workers.flatMap(\.udpAddresses) }
    /// The first worker's ICE-TCP port, when enabled.
    var tcpPort: UInt16? { workers[0].tcpPort }

    /// The media plane's figures as the workers published them in the last second: totals summed,
    /// distributions merged, and one `SFUMetrics.Worker` per worker in index order.
    var metrics: SFUMetrics {
        var sum = SFUMetrics()
        for worker in workers {
            var figures = worker.sfu.metrics
            // Before its first publication a worker has no entry: hold its index.
            if figures.workers.isEmpty { figures.workers = [SFUMetrics.Worker()] }
            sum.merge(figures)
        }
        return sum
    }

    /// The worker a new channel goes to (`MediaWorkerPlacement`).
    func placeChannel() -> MediaWorker {
        let pinned = pinnedWorker.load(ordering: .relaxed)
        if workers.indices.contains(pinned) { return workers[pinned] }
        return workers.count == 1 ? workers[0] : workers[MediaWorkerPlacement.choose(workers.map(\.load))]
    }

    /// The worker that serves the next participant of a channel on `channelWorker` whose budget
    /// there is spent: the least loaded of the others; nil with one worker.
    func placeOverflow(from channelWorker: MediaWorker) -> MediaWorker? {
        let others = workers.filter { $0 !== channelWorker }
        guard !others.isEmpty else { return nil }
        return others[MediaWorkerPlacement.choose(others.map(\.load))]
    }

    /// Test support: puts every new channel on worker `index` (-1: placement decides), so suites
    /// written for one channel run on a worker other than the first (`TestServer`).
    let pinnedWorker = Atomic<Int>(-1)

    func stop() { for worker in workers { worker.sfu.stop() } }

    // MARK: - Registration

    func register(room: ChannelRoom, router: RouterID) {
        register(sink: room.inbox, router: router)
    }

    /// Routes the SFU events of `router` to `sink`.
    func register(sink: any MediaEventSink, router: RouterID) {
        routes.withLock { $0.rooms[router] = sink }
    }

    func unregister(router: RouterID) {
        routes.withLock { r in
            r.rooms[router] = nil
            r.consumers = r.consumers.filter { $0.value.room != router }
            r.transports = r.transports.filter { $0.value.room != router }
        }
    }

    /// Routes the data channel events of `transport` to `uid` in `router`'s room.
    func register(transport: TransportID, router: RouterID, uid: String, owner: ObjectIdentifier) {
        routes.withLock { $0.transports[transport] = (router, uid, owner) }
    }

    func unregister(transport: TransportID) {
        _ = routes.withLock { $0.transports.removeValue(forKey: transport) }
    }

    func register(consumer: ConsumerID, router: RouterID, uid: String, trackId: String) {
        routes.withLock { $0.consumers[consumer] = (router, uid, trackId) }
    }

    func unregister(consumer: ConsumerID) {
        _ = routes.withLock { $0.consumers.removeValue(forKey: consumer) }
    }

    // MARK: - SFUListener (I/O thread: look up, post to the room's inbox, return)

    func sfuWorker(_ worker: SFUWorker, didEmit event: SFUEvent) {
        switch event {
        case .activeSpeakers(let router, let levels):
            inbox(router)?.post(.activeSpeakers(ActiveSpeakersSnapshot(speakers: levels.map {
                ActiveSpeaker(uid: $0.participant.rawValue, trackId: $0.producer.rawValue, level: $0.level)
            })))
        case .qualityReport(let router, let report):
            inbox(router)?.post(.qualityReport(QualityReport(
                uid: report.participant.rawValue, timestamp: report.timestamp,
                upstream: Self.link(report.upstream), downstream: Self.link(report.downstream),
                rttMs: report.rttMs ?? 0, availableBitrateBps: report.availableBitrate, quality: Self.level(report.level)), .channel))
        case .connectionQualityChanged(_, let participant, _, _) where participant.rawValue.hasPrefix("~"):
            break  // a node-to-node relay transport (`EdgeRelay`), not a user
        case .connectionQualityChanged(let router, let participant, let level, let previous):
            inbox(router)?.post(.connectionQuality(ConnectionQualityChange(uid: participant.rawValue, quality: Self.level(level),
                                                                           previous: Self.level(previous)), .channel))
        case .layerSwitched(let consumer, let change):
            let route = routes.withLock { r -> (any MediaEventSink, String, String)? in
                guard let c = r.consumers[consumer], let inbox = r.rooms[c.room] else { return nil }
                return (inbox, c.uid, c.trackId)
            }
            guard let (inbox, uid, trackId) = route else { return }
            inbox.post(.layerSwitched(subscriber: uid, trackId: trackId, layer: change.layer, previous: change.previous,
                                      cause: change.cause.rawValue))
        case .dataChannelOpened(let transport, let info):
            guard let (inbox, uid, owner) = route(transport) else { return }
            inbox.post(.dataChannelOpened(uid: uid, owner: owner,
                                          DataChannelConnection(worker: worker, transport: transport, channel: info.id)))
        case .dataChannelClosed(let transport, let channel):
            guard let (inbox, uid, _) = route(transport) else { return }
            inbox.post(.dataChannelClosed(uid: uid, transport: transport.rawValue, channel: channel))
        case .layersNeeded(let router, let producer, let layers):
            inbox(router)?.post(.layersNeeded(trackId: producer.rawValue, layers: layers))
        case .dataChannelMessage:
            break
        case .transportStateChanged(let id, let state):
            Log.debug("media", "transport \(id) \(state)")
            if state == .failed, let (inbox, uid, owner) = route(id) { inbox.post(.mediaFailed(uid: uid, owner: owner)) }
        case .producerClosed, .consumerClosed:
            break  // the room already knows: it closed them, or their participant left
        }
    }

    private func route(_ transport: TransportID) -> ((any MediaEventSink), String, ObjectIdentifier)? {
        routes.withLock { r in
            guard let t = r.transports[transport], let inbox = r.rooms[t.room] else { return nil }
            return (inbox, t.uid, t.owner)
        }
    }

    private func inbox(_ router: RouterID) -> (any MediaEventSink)? {
        routes.withLock { $0.rooms[router] }
    }

    static func link(_ s: LinkQualityStats) -> LinkStats {
        LinkStats(bitrateBps: s.bitrate, packets: s.packets, lossRate: s.lossRate, jitterMs: s.jitterMs)
    }

    static func level(_ l: QualityLevel) -> ConnectionQuality {
        switch l {
        case .excellent: return .excellent
        case .good: return .good
        case .poor: return .poor
        case .lost: return .lost
        }
    }
}

/// One channel's router on the SFU.
final class SFURoomMedia: RoomMedia {
    let server: MediaServer
    /// The worker the channel's router lives on, chosen when the channel starts, for its life.
    let worker: MediaWorker
    let router: RouterID
    let key: ChannelKey
    /// On a cluster: where sessions past the per-node limit get their subscriptions.
    private let relaying: ChannelRelaying?
    /// Participants whose media the channel's worker serves and those other workers of this node
    /// serve, the relays to other nodes by node id and to other workers by index.
    private struct State {
        var local = 0
        /// Participants other workers of this node serve.
        var piped = 0
        var relays: [String: EdgeRelay] = [:]
        var workerRelays: [Int: WorkerRelay] = [:]
    }
    private let state = Mutex(State())

    init(server: MediaServer, key: ChannelKey, relaying: ChannelRelaying? = nil) {
        self.server = server
        worker = server.placeChannel()
        self.key = key
        self.router = RouterID(key.description)
        self.relaying = relaying
    }

    func prepare(room: ChannelRoom) async throws(SignalError) {
        do { try await worker.sfu.createRouter(router) } catch {
            throw SignalError(.internalError, "cannot create the channel's media router: \(error)")
        }
        server.register(room: room, router: router)
    }

    func makeParticipant(uid: String, joinedAt: Int64, events: RoomInbox, relayedBy: String?, anyVideoCodec: Bool) async -> ParticipantMedia {
        if let relayedBy, let relay = await relay(for: relayedBy) {
            return EdgeParticipantMedia(local: SFUParticipantMedia(server: server, worker: worker, router: router, uid: uid, joinedAt: joinedAt, events: events,
                                                                  anyVideoCodec: anyVideoCodec),
                                        relay: relay, uid: uid, events: events)
        }
        if let (far, relay) = workerRelay(events: events) {
            let remote = SFUParticipantMedia(server: server, worker: far, router: relay.farRouter, uid: uid, joinedAt: joinedAt, events: events,
                                             onClose: { [weak self] in self?.state.withLock { $0.piped -= 1 } })
            return PipedParticipantMedia(local: SFUParticipantMedia(server: server, worker: worker, router: router, uid: uid, joinedAt: joinedAt, events: events,
                                                                   anyVideoCodec: anyVideoCodec),
                                         remote: remote, relay: relay)
        }
        return SFUParticipantMedia(server: server, worker: worker, router: router, uid: uid, joinedAt: joinedAt, events: events,
                                   anyVideoCodec: anyVideoCodec, onClose: { [weak self] in self?.state.withLock { $0.local -= 1 } })
    }

    /// The relay to another worker when the channel's worker already serves
    /// `--worker-subscriber-budget` of its participants; nil to serve the participant on the
    /// channel's worker (and count it there). `events`: the room's inbox, where the far
    /// router's events go.
    private func workerRelay(events: RoomInbox) -> (MediaWorker, WorkerRelay)? {
        let budget = server.subscriberBudget
        let far: MediaWorker? = state.withLock { s in
            guard budget > 0, s.local >= budget, let far = server.placeOverflow(from: worker) else {
                s.local += 1
                return nil
            }
            s.piped += 1
            return far
        }
        guard let far else { return nil }
        return state.withLock { s in
            if let existing = s.workerRelays[far.index] { return (far, existing) }
            let made = WorkerRelay(server: server, worker: worker, router: router, far: far, events: events)
            s.workerRelays[far.index] = made
            return (far, made)
        }
    }

    /// The relay to `nodeId` when this node serves as many of the channel's participants as it
    /// may and `nodeId` is another live node; `nil` to serve the session here.
    private func relay(for nodeId: String) async -> EdgeRelay? {
        guard let relaying, relaying.limit > 0, nodeId != relaying.forwarder.directory.registry.nodeId,
              state.withLock({ $0.local + $0.piped }) >= relaying.limit else { return nil }
        guard let node = await relaying.forwarder.directory.registry.node(id: nodeId), !node.draining else { return nil }
        // A node that restarted under the same id may answer elsewhere now: the relay to where
        // it was is replaced (and closed), not reused.
        let existing = state.withLock { $0.relays[nodeId] }
        if let existing, existing.node.httpURL == node.httpURL, existing.node.mediaAddresses == node.mediaAddresses { return existing }
        let made = EdgeRelay(node: node, key: key, server: server, worker: worker, router: router, caller: relaying.forwarder)
        let (chosen, stale) = state.withLock { s -> (EdgeRelay, EdgeRelay?) in
            let current = s.relays[nodeId]
            if let current, current !== existing { return (current, nil) }   // another session replaced it meanwhile
            s.relays[nodeId] = made
            return (made, current)
        }
        if let stale { Task { await stale.close() } }
        return chosen
    }

    func publishData(_ payload: [UInt8], topic: String?, reliable: Bool, to uids: Set<String>) async throws(SignalError) -> Int {
        let channel = reliable ? SignalDataChannel.reliableID : SignalDataChannel.lossyID
        do { return try await worker.sfu.publishData(payload, topic: topic, channel: channel, router: router, to: uids) } catch {
            throw SignalError(.invalidParameter, "\(error)")
        }
    }

    func close() async {
        let (relays, workerRelays) = state.withLock { s in
            defer { s.relays = [:]; s.workerRelays = [:] }
            return (Array(s.relays.values), Array(s.workerRelays.values))
        }
        for relay in relays { await relay.close() }
        for relay in workerRelays { await relay.close() }
        server.unregister(router: router)
        await worker.sfu.closeRouter(router)
    }
}
