import RTCCrypto
import SRTCProtocol

/// The media of a session whose subscriptions another media worker serves (docs/architecture.md,
/// "A channel larger than a worker"): the channel's worker already served
/// `--worker-subscriber-budget` of the channel's participants when it joined. Publishing stays on
/// the channel's worker (`publishing`: every publisher publishes to the channel's router); the
/// subscribe transport, its data channels and its consumers are on the far worker (`remote`, on
/// the relay's router there), where each subscribed track arrives once through the relay
/// (`WorkerRelay`). Each side announces its own worker's candidates, so the client's datagrams
/// reach the thread that owns each transport. The node-to-node counterpart is `EdgeParticipantMedia`.
actor PipedParticipantMedia: RelayedParticipantMedia {
    nonisolated let publishing: SFUParticipantMedia
    private let remote: SFUParticipantMedia
    private let relay: WorkerRelay
    /// This session among the relay's.
    private let session = SecureRandom.string(count: 12)
    /// The layer each subscription's far consumer was given when subscribing, by track id.
    private var farLayers: [String: String?] = [:]

    /// Data channel events come from the subscribe side, on the far worker.
    nonisolated let eventOwner: ObjectIdentifier
    /// The worker that serves this session's subscriptions.
    nonisolated let servingWorker: Int

    init(local: SFUParticipantMedia, remote: SFUParticipantMedia, relay: WorkerRelay) {
        publishing = local
        self.remote = remote
        self.relay = relay
        eventOwner = ObjectIdentifier(remote)
        servingWorker = relay.far.index
    }

    func subscribe(to track: TrackInfo, of publisher: ParticipantMedia, layer: String?) async throws(SignalError) {
        try await relay.include(track, session: session, layer: layer)
        try await remote.subscribe(to: track, of: publisher, layer: layer)
        farLayers[track.id] = .some(layer)
    }

    /// The layer is chosen on the channel's worker, for the relay (the far worker gets one);
    /// pausing (`none`) and resuming are this session's consumer's, on the far worker, which
    /// resumes at the layer it was given when subscribing.
    func setLayer(trackId: String, layer: String?) async throws(SignalError) {
        guard layer != LayerSwitchedInfo.pausedLayer else { return try await remote.setLayer(trackId: trackId, layer: layer) }
        try await remote.setLayer(trackId: trackId, layer: farLayers[trackId] ?? nil)
        await relay.setLayer(trackId: trackId, session: session, layer: layer)
    }

    func unsubscribe(trackId: String) async {
        await remote.unsubscribe(trackId: trackId)
        farLayers[trackId] = nil
        await relay.exclude(trackId: trackId, session: session)
    }

    func applySubscriberAnswer(sdp: String, revision: Int) async throws(SignalError) {
        try await remote.applySubscriberAnswer(sdp: sdp, revision: revision)
    }

    func restartICE(_ transport: TransportRole, offer: String?) async throws(SignalError) -> String? {
        if transport == .publish { return try await publishing.restartICE(transport, offer: offer) }
        return try await remote.restartICE(transport, offer: offer)
    }

    /// The channels go on the subscribe transport, on the far worker; user data crosses the
    /// relay's pipe both ways (`DataFanOut`), so the relay opens first.
    func openDataChannels(publishData: Bool) async {
        do throws(SignalError) { try await relay.open() } catch {
            Log.warn("media", "no relay to media worker \(servingWorker): \(error.message)")
        }
        await remote.openDataChannels(publishData: publishData)
    }

    func close() async {
        await publishing.close()
        await remote.close()
        await relay.excludeAll(session: session)
    }
}
