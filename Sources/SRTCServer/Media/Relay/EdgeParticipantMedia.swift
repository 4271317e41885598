import RTCCrypto
import SRTCProtocol

/// The media of a session whose subscriptions a relaying node serves (docs/deploy.md, "Channels
/// larger than a node"): its channel's node had reached `--node-channel-subscribers` when the
/// session, relayed by that node, first needed media. Publishing stays here (every publisher
/// publishes to the channel's node); each subscription makes the track arrive at the relaying
/// node once (`EdgeRelay`) and is then served there, where the session's subscribe transport
/// lives. The offers the relaying node makes come back in its answers and go to the client
/// through the room, in order with the room's other events.
actor EdgeParticipantMedia: RelayedParticipantMedia {
    nonisolated let publishing: SFUParticipantMedia
    private let relay: EdgeRelay
    private let uid: String
    private let events: RoomInbox
    /// This session on the relaying node.
    private let session = SecureRandom.string(count: 12)

    init(local: SFUParticipantMedia, relay: EdgeRelay, uid: String, events: RoomInbox) {
        publishing = local
        self.relay = relay
        self.uid = uid
        self.events = events
    }

    func subscribe(to track: TrackInfo, of publisher: ParticipantMedia, layer: String?) async throws(SignalError) {
        do {
            try await subscribeThere(track, layer: layer)
        } catch where EdgeRelay.isLost(error) {
            // The relaying node lost the relay (a restart under the same id): once more on a new one.
            await relay.forget()
            try await subscribeThere(track, layer: layer)
        }
    }

    private func subscribeThere(_ track: TrackInfo, layer: String?) async throws(SignalError) {
        try await relay.include(track, session: session, layer: layer)
        var call = await sessionCall(.subscribe)
        call.track = track
        call.layer = layer
        try await perform(call)
    }

    /// Pausing (`none`) keeps what the relay carries: the relaying node's consumer is not paused
    /// (docs/protocol.md, `set_layer`).
    func setLayer(trackId: String, layer: String?) async throws(SignalError) {
        guard layer != LayerSwitchedInfo.pausedLayer else { return }
        await relay.setLayer(trackId: trackId, session: session, layer: layer)
    }

    func unsubscribe(trackId: String) async {
        var call = await sessionCall(.unsubscribe)
        call.trackId = trackId
        try? await perform(call)
        await relay.exclude(trackId: trackId, session: session)
    }

    func applySubscriberAnswer(sdp: String, revision: Int) async throws(SignalError) {
        var call = await sessionCall(.answer)
        call.sdp = sdp
        call.revision = revision
        try await perform(call)
    }

    func restartICE(_ transport: TransportRole, offer: String?) async throws(SignalError) -> String? {
        guard transport == .subscribe else { return try await publishing.restartICE(transport, offer: offer) }
        try await perform(await sessionCall(.restart))
        return nil
    }

    /// The data channels go on the subscribe transport, on the relaying node, which sends this
    /// session's quality, speaker and layer events there once they open (`EdgeClients`). User
    /// data crosses between the nodes on the relay's own data channels.
    func openDataChannels(publishData: Bool) async {
        do throws(SignalError) {
            try await relay.open()
            var call = await sessionCall(.channels)
            call.publishData = publishData
            try await perform(call)
        } catch {
            Log.warn("cluster", "\(uid): no data channels on the relaying node: \(error.message)")
        }
    }

    func close() async {
        await publishing.close()
        try? await perform(await sessionCall(.leave))
        await relay.excludeAll(session: session)
    }

    /// The relaying node that serves this session's subscriptions.
    nonisolated var servingNode: String { relay.node.id }

    private func sessionCall(_ op: EdgeCall.Op) async -> EdgeCall {
        var call = await relay.makeCall(op)
        call.session = session
        call.uid = uid
        return call
    }

    /// Performs a session call there and sends its offers to the client.
    private func perform(_ call: EdgeCall) async throws(SignalError) {
        let answer = try await relay.call(call)
        for offer in answer.offers { events.post(.subscriberOffer(uid: uid, sdp: offer.sdp, revision: offer.revision)) }
    }
}
