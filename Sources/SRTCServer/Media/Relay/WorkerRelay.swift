import RTCCrypto
import SFU
import SRTCProtocol

/// On a channel's worker: the relay of the channel to another media worker of this node
/// (docs/architecture.md, "A channel larger than a worker"), for the sessions the channel's
/// worker had no room for (`--worker-subscriber-budget`). The relay between nodes (`EdgeRelay`,
/// `EdgeChannel`) with the in-process carrier (`WorkerPipe`) instead of DTLS-SRTP: a pipe
/// transport on the channel's router with a consumer per relayed track, at the best layer one of
/// the far worker's sessions asks for (`RelayDemand`); a router of its own on the far worker
/// whose pipe transport produces the relayed tracks; and on that router, each session's
/// subscribe side as an ordinary `SFUParticipantMedia` (`PipedParticipantMedia`), so its NACKs
/// are answered from the far worker's packet cache and its key-frame requests cross the pipe
/// as PLIs to the consumer here, which asks the publisher.
actor WorkerRelay {
    let server: MediaServer
    /// The channel's worker and router.
    let worker: MediaWorker
    let router: RouterID
    /// The worker this relay serves sessions on, and its router of the channel.
    nonisolated let far: MediaWorker
    nonisolated let farRouter: RouterID
    /// The room the far router's events go to (filtered: `WorkerRelayEvents`).
    private let events: any MediaEventSink
    private let tag = SecureRandom.string(count: 8)
    private var pipe: WorkerPipe?

    /// The relayed tracks: their consumers on the channel's router and what the far sessions asked for.
    private var tracks = RelayedTracks()

    init(server: MediaServer, worker: MediaWorker, router: RouterID, far: MediaWorker, events: any MediaEventSink) {
        self.server = server
        self.worker = worker
        self.router = router
        self.far = far
        farRouter = RouterID("\(router.rawValue)@worker\(far.index)")
        self.events = events
    }

    /// The subscriber the relay's consumers stand for in the SFU's events: `~worker:<index>`
    /// (no user's uid starts with `~`); its layer switches go to the sessions the far worker
    /// serves the track to (`ChannelRoom.apply`).
    nonisolated var subscriberUid: String { Self.subscriberPrefix + String(far.index) }
    static let subscriberPrefix = "~worker:"

    private var channelEnd: TransportID { TransportID("~worker:\(far.index)#\(tag)@\(router.rawValue)") }
    private var farEnd: TransportID { TransportID("~worker:\(worker.index)#\(tag)@\(farRouter.rawValue)") }

    /// Opens the relay (once): the far router and both ends of the pipe.
    func open() async throws(SignalError) {
        guard pipe == nil else { return }
        do {
            let made = try WorkerPipe()
            try await far.sfu.createRouter(farRouter)
            server.register(sink: WorkerRelayEvents(room: events), router: farRouter)
            try await far.sfu.createPipeTransport(farEnd, router: farRouter, participant: ParticipantID("~worker:\(worker.index)"),
                                                  pipe: made, side: .far)
            try await worker.sfu.createPipeTransport(channelEnd, router: router, participant: ParticipantID(subscriberUid),
                                                     pipe: made, side: .channel)
            pipe = made
        } catch {
            server.unregister(router: farRouter)
            await far.sfu.closeRouter(farRouter)
            throw SignalError(.internalError, "cannot open the relay to media worker \(far.index): \(error)")
        }
    }

    /// Makes `track` arrive on the far worker (once) and records that `session` there takes it at `layer`.
    func include(_ track: TrackInfo, session: String, layer: String?) async throws(SignalError) {
        try await open()
        if !tracks.carries(track.id) {
            let ssrc = SecureRandom.uint32() | 1
            let parameters = EdgeRelay.parameters(of: track, ssrc: ssrc)
            let consumer = ConsumerID("\(subscriberUid)#\(tag)/\(track.id)")
            do {
                try await far.sfu.produce(ProducerID(track.id), transport: farEnd, kind: track.kind == .audio ? .audio : .video,
                                          parameters: parameters)
                // Routed before it exists: its first layer switch may come before `consume` returns.
                server.register(consumer: consumer, router: router, uid: subscriberUid, trackId: track.id)
                _ = try await worker.sfu.consume(consumer, transport: channelEnd, producer: ProducerID(track.id),
                                                 parameters: parameters, preferredLayer: layer)
            } catch {
                server.unregister(consumer: consumer)
                await far.sfu.closeProducer(ProducerID(track.id))
                throw SignalError(.internalError, "cannot relay track \(track.id) to media worker \(far.index): \(error)")
            }
            tracks.start(track.id, consumer: consumer, layers: track.layers, initial: layer)
        }
        await apply(tracks.take(track.id, session: session, layer: layer), trackId: track.id)
    }

    /// `session` there now takes `trackId` at `layer`.
    func setLayer(trackId: String, session: String, layer: String?) async {
        await apply(tracks.setLayer(trackId, session: session, layer: layer), trackId: trackId)
    }

    /// `session` there no longer takes `trackId`; the last one ends the track's relay.
    func exclude(trackId: String, session: String) async {
        await apply(tracks.release(trackId, session: session), trackId: trackId)
    }

    /// Every subscription `session` there had.
    func excludeAll(session: String) async {
        for trackId in tracks.trackIds(takenBy: session) { await exclude(trackId: trackId, session: session) }
    }

    /// Relays a simulcast track at the best layer any session there asked for, or stops relaying it.
    private func apply(_ action: RelayedTracks.Action?, trackId: String) async {
        switch action {
        case .setLayer(let consumer, let layer)?: try? await worker.sfu.setPreferredLayer(consumer, layer: layer)
        case .stop(let consumer)?:
            server.unregister(consumer: consumer)
            await worker.sfu.closeConsumer(consumer)
            await far.sfu.closeProducer(ProducerID(trackId))
        case nil: break
        }
    }

    /// Packets the pipe dropped because a ring was full (both ways).
    var droppedPackets: Int { pipe?.droppedCount ?? 0 }

    /// Ends the relay: the pipe's end here (its consumers), the far router with everything on it.
    func close() async {
        for consumer in tracks.removeAll() { server.unregister(consumer: consumer) }
        guard pipe != nil else { return }
        pipe = nil
        await worker.sfu.closeTransport(channelEnd)
        server.unregister(router: farRouter)
        await far.sfu.closeRouter(farRouter)
    }
}

/// The far router's events, on their way to the channel's room: what concerns the sessions
/// served there (their data channels, quality reports and levels, offers) passes; what the
/// channel's own router already reports for the whole channel (speakers, dynacast) does not, so
/// a room hears each once. Runs on the far worker's I/O thread.
struct WorkerRelayEvents: MediaEventSink {
    let room: any MediaEventSink

    @discardableResult
    func post(_ event: RoomEvent) -> Bool {
        switch event {
        case .activeSpeakers, .layersNeeded:
            return true
        case .qualityReport(let report, _) where report.uid.hasPrefix("~"):
            return true
        case .qualityReport(let report, _):
            return room.post(.qualityReport(report, .serving))
        case .connectionQuality(let change, _):
            return room.post(.connectionQuality(change, .serving))
        default:
            return room.post(event)
        }
    }
}
