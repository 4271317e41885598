import RTCCrypto
import RTCTransport
import RTCWire
import SFU
import SRTCProtocol

/// One participant's media on the SFU: the publish transport (client offers, server answers)
/// and the subscribe transport (server offers, client answers). `ServerNegotiation` decides
/// every description and parameter; this actor performs its plans on the `SFUWorker`.
actor SFUParticipantMedia: ParticipantMedia {
    let server: MediaServer
    /// The worker of the participant's channel: its transports are there, and its descriptions
    /// announce that worker's candidates.
    let worker: MediaWorker
    let router: RouterID
    let uid: String
    /// Where the subscribe transport's offers go: the room's inbox (or a relaying node's answer).
    let events: any MediaEventSink
    /// Distinguishes this session's SFU objects from an earlier session of the same uid.
    let instance = SecureRandom.string(count: 8)

    private var negotiation: ServerNegotiation
    private var publishTransport: TransportID?
    private var subscribeTransport: TransportID?
    /// Tracks published, by id.
    private var producers: Set<String> = []
    private var closed = false
    /// Whether the user data this participant sends on its data channels is forwarded.
    private var dataPublisher = false
    /// When the participant joined (Unix ms): the SFU counts the time to its first forwarded packet.
    let joinedAt: Int64

    /// Called once when closed (the room's count of the participants this node serves).
    private let onClose: @Sendable () -> Void

    /// - Parameter anyVideoCodec: the server's own publisher (composite, ingress): its publish
    ///   offers are answered in their own order, not by `--video-codecs`.
    init(server: MediaServer, worker: MediaWorker, router: RouterID, uid: String, joinedAt: Int64, events: any MediaEventSink,
         anyVideoCodec: Bool = false, onClose: @escaping @Sendable () -> Void = {}) {
        self.onClose = onClose
        self.server = server
        self.worker = worker
        self.router = router
        self.uid = uid
        self.joinedAt = joinedAt
        self.events = events
        negotiation = ServerNegotiation(
            fingerprint: Fingerprint(algorithm: "sha-256", bytes: server.certificate.fingerprint.bytes), candidates: worker.candidates,
            sessionID: String(SecureRandom.uint32() & 0x7fff_ffff), publishICE: .random(), subscribeICE: .random(),
            videoCodecs: anyVideoCodec ? .offerOrder : server.publishVideoCodecs)
    }

    private var participant: ParticipantID { ParticipantID(uid) }

    private func consumerID(_ trackId: String) -> ConsumerID { ConsumerID("\(uid)#\(instance)/\(trackId)") }

    private func parameters(_ remote: ServerNegotiation.RemoteTransport, local: ICECredentials,
                            sctp: SCTPParameters? = nil) -> PeerTransportParameters {
        PeerTransportParameters(iceRole: .lite, localICE: local, remoteICE: remote.ice, certificate: server.certificate,
                                remoteFingerprint: remote.fingerprint, dtlsRole: remote.dtlsRole, sctp: sctp)
    }

    /// The subscribe transport's SCTP setup and channels, when it carries data channels.
    private var subscribeSCTP: SCTPParameters? { negotiation.dataChannels ? SCTPParameters() : nil }
    private var subscribeDataChannels: [DataChannelInfo] { negotiation.dataChannels ? Self.dataChannels : [] }

    /// The two channels of docs/protocol.md, "Data channels", negotiated out of band (RFC 8831
    /// §6.5); the relay transports between nodes carry user data on the same two.
    static let dataChannels = [
        DataChannelInfo(id: SignalDataChannel.reliableID, label: SignalDataChannel.reliableLabel, negotiated: true),
        DataChannelInfo(id: SignalDataChannel.lossyID, label: SignalDataChannel.lossyLabel, reliability: .lossy, negotiated: true),
    ]

    /// Creates the subscribe transport `id` and routes its data channels' events to the room.
    private func createSubscribeTransport(_ id: TransportID, parameters: PeerTransportParameters) async throws(SFUError) {
        server.register(transport: id, router: router, uid: uid, owner: ObjectIdentifier(self))
        do {
            try await worker.sfu.createTransport(id, router: router, participant: participant, parameters: parameters,
                                                    dataChannels: subscribeDataChannels, dataPublisher: dataPublisher,
                                                    joinedAt: joinedAt)
        } catch {
            server.unregister(transport: id)
            throw error
        }
    }

    // MARK: - Publishing

    func publish(offer: String, tracks: [PublishTrack], trackIds: [String: String]) async throws(SignalError) -> String {
        guard !closed else { throw SignalError(.wrongState, "media closed") }
        let plan = try negotiation.answerPublish(offer: offer, tracks: tracks, trackIds: trackIds, transportExists: publishTransport != nil)
        if let remote = plan.transport {
            let id = TransportID("\(uid)#\(instance)/publish")
            // Routed for its state changes (`RoomEvent.mediaFailed`).
            server.register(transport: id, router: router, uid: uid, owner: ObjectIdentifier(self))
            do {
                try await worker.sfu.createTransport(id, router: router, participant: participant,
                                                        parameters: parameters(remote, local: negotiation.publishICE))
            } catch {
                server.unregister(transport: id)
                throw SignalError(.internalError, "cannot create the publish transport: \(error)")
            }
            publishTransport = id
        }
        guard let transport = publishTransport else { throw SignalError(.internalError, "no publish transport") }
        for producer in plan.producers {
            do {
                try await worker.sfu.produce(ProducerID(producer.trackId), transport: transport, kind: producer.kind,
                                                parameters: producer.parameters, muted: producer.muted)
            } catch {
                throw SignalError(.internalError, "cannot receive track \(producer.parameters.mid ?? producer.trackId): \(error)")
            }
            producers.insert(producer.trackId)
        }
        return plan.sdp
    }

    func unpublish(trackId: String, offer: String?) async throws(SignalError) -> String? {
        guard producers.remove(trackId) != nil else { throw SignalError(.notFound, "no producer \(trackId)") }
        await worker.sfu.closeProducer(ProducerID(trackId))
        guard let offer else { return nil }
        return try negotiation.answerPublishRenegotiation(offer: offer)
    }

    func setMuted(trackId: String, muted: Bool) async {
        try? await worker.sfu.setProducerMuted(ProducerID(trackId), muted: muted)
    }

    // MARK: - Subscribing

    func subscribe(to track: TrackInfo, of publisher: ParticipantMedia, layer: String?) async throws(SignalError) {
        guard !closed else { throw SignalError(.wrongState, "media closed") }
        let ssrc = SecureRandom.uint32() | 1
        let offer = negotiation.subscribe(trackId: track.id, publisherUid: track.uid, kind: track.kind == .audio ? .audio : .video,
                                          layer: layer, ssrc: ssrc, rtxSSRC: ssrc ^ (SecureRandom.uint32() | 2), codec: track.codec,
                                          profileLevelID: track.profileLevelID, e2ee: track.e2ee == true)
        await prepareSubscribeTransport()
        send(offer)
    }

    func openDataChannels(publishData: Bool) async {
        dataPublisher = publishData
        guard !closed, let offer = negotiation.offerDataChannels() else { return }
        await prepareSubscribeTransport()
        send(offer)
    }

    /// Makes the subscribe transport with the first offer, so the client's checks are answered
    /// from its first one (RFC 8445 §7.3) instead of after our answer arrived: a client that
    /// checks at once (aiortc) otherwise waits out its retransmission timer (~500 ms).
    private func prepareSubscribeTransport() async {
        guard subscribeTransport == nil else { return }
        let id = TransportID("\(uid)#\(instance)/subscribe")
        do {
            try await createSubscribeTransport(id, parameters: .awaitingAnswer(localICE: negotiation.subscribeICE,
                                                                              certificate: server.certificate, sctp: subscribeSCTP))
            subscribeTransport = id
        } catch {
            Log.warn("media", "\(uid) cannot create the subscribe transport early: \(error)")
        }
    }

    /// A layer, the best (nil), or `none`: the consumer paused (the subscriber shows the video
    /// nowhere) until a layer is asked for again.
    func setLayer(trackId: String, layer: String?) async throws(SignalError) {
        guard try negotiation.setLayer(trackId: trackId, layer: layer) else { return }  // applied when the consumer starts
        let paused = layer == LayerSwitchedInfo.pausedLayer
        do {
            // The layer first: a paused consumer resumes on that layer's key frame, never on the one it had.
            if !paused { try await worker.sfu.setPreferredLayer(consumerID(trackId), layer: layer) }
            try await worker.sfu.setConsumerPaused(consumerID(trackId), paused: paused)
        } catch {
            throw SignalError(.internalError, "cannot switch layer: \(error)")
        }
    }

    func unsubscribe(trackId: String) async {
        guard let (wasConsuming, offer) = negotiation.unsubscribe(trackId: trackId) else { return }
        if wasConsuming {
            await worker.sfu.closeConsumer(consumerID(trackId))
            server.unregister(consumer: consumerID(trackId))
        }
        send(offer)
    }

    func applySubscriberAnswer(sdp: String, revision: Int) async throws(SignalError) {
        let plan = try negotiation.applySubscriberAnswer(sdp, revision: revision, transportExists: subscribeTransport != nil)
        if let remoteICE = plan.restartICE, let transport = subscribeTransport {
            do { try await worker.sfu.restartICE(transport, local: negotiation.subscribeICE, remote: remoteICE) } catch {
                throw SignalError(.internalError, "ICE restart failed: \(error)")
            }
        }
        if let remote = plan.complete, let early = subscribeTransport {
            if remote.dtlsRole == .server {
                do { try await worker.sfu.completeNegotiation(early, remoteICE: remote.ice, remoteFingerprint: remote.fingerprint) } catch {
                    throw SignalError(.internalError, "cannot complete the subscribe transport: \(error)")
                }
            } else {
                // The client wants to be the DTLS server: the early transport assumed otherwise.
                await worker.sfu.closeTransport(early)
                server.unregister(transport: early)
                subscribeTransport = nil
            }
        }
        if let remote = plan.transport ?? (subscribeTransport == nil ? plan.complete : nil) {
            let id = TransportID("\(uid)#\(instance)/subscribe-\(negotiation.revision)")
            do {
                try await createSubscribeTransport(id, parameters: parameters(remote, local: negotiation.subscribeICE, sctp: subscribeSCTP))
            } catch {
                throw SignalError(.internalError, "cannot create the subscribe transport: \(error)")
            }
            subscribeTransport = id
        }
        guard let transport = subscribeTransport else { return }
        for consumer in plan.consumers {
            let id = consumerID(consumer.trackId)
            // Routed before it exists: the consumer's first layer switch may come before `consume` returns.
            server.register(consumer: id, router: router, uid: uid, trackId: consumer.trackId)
            do {
                let paused = consumer.layer == LayerSwitchedInfo.pausedLayer
                _ = try await worker.sfu.consume(id, transport: transport, producer: ProducerID(consumer.trackId),
                                                    parameters: consumer.parameters, preferredLayer: paused ? nil : consumer.layer, paused: paused)
                negotiation.consumerStarted(trackId: consumer.trackId)
            } catch {
                server.unregister(consumer: id)
                Log.warn("media", "\(uid) cannot consume \(consumer.trackId): \(error)")
            }
        }
    }

    func restartICE(_ transport: TransportRole, offer: String?) async throws(SignalError) -> String? {
        switch transport {
        case .publish:
            guard let id = publishTransport else { throw SignalError(.wrongState, "nothing published yet") }
            guard let offer else { throw SignalError(.malformedBody, "restart_ice for publish needs the client's new offer in sdp") }
            let (answer, remoteICE) = try negotiation.answerPublishRestart(offer: offer, newICE: .random())
            do { try await worker.sfu.restartICE(id, local: negotiation.publishICE, remote: remoteICE) } catch {
                throw SignalError(.internalError, "ICE restart failed: \(error)")
            }
            return answer
        case .subscribe:
            guard subscribeTransport != nil else { throw SignalError(.wrongState, "no subscribe transport yet") }
            send(negotiation.restartSubscribeICE(newICE: .random()))
            return nil
        }
    }

    func close() async {
        guard !closed else { return }
        closed = true
        onClose()
        for trackId in negotiation.consumingTrackIds { server.unregister(consumer: consumerID(trackId)) }
        if let publishTransport {
            await worker.sfu.closeTransport(publishTransport)
            server.unregister(transport: publishTransport)
        }
        if let subscribeTransport {
            await worker.sfu.closeTransport(subscribeTransport)
            server.unregister(transport: subscribeTransport)
        }
        publishTransport = nil
        subscribeTransport = nil
    }

    /// Sends the subscribe transport's offer to the client, through the room.
    private func send(_ offer: ServerNegotiation.SubscriberOffer) {
        events.post(.subscriberOffer(uid: uid, sdp: offer.sdp, revision: offer.revision))
    }
}
