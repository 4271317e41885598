import RTCNet
import RTCTransport
import RTCWire

// The control-plane API the server calls. Every method may be called from any thread or task;
// it runs on the I/O thread and returns when done there.

extension SFUWorker {
    // MARK: - Routers

    /// Creates a router (one per channel).
    public func createRouter(_ id: RouterID) async throws(SFUError) {
        try await perform { core, now throws(SFUError) in try core.createRouter(id, now: now) }
    }

    /// Closes a router with everything in it.
    public func closeRouter(_ id: RouterID) async {
        _ = try? await perform { core, _ in core.closeRouter(id) }
    }

    // MARK: - Transports

    /// Creates a `PeerTransport` on the worker's port (ICE-lite, DTLS, SRTP) from negotiated
    /// parameters and attaches it to a router for one participant. It may both publish
    /// (`produce`) and subscribe (`consume`); SRTC uses one of each per participant.
    /// - Parameters:
    ///   - dataChannels: channels agreed out of band (RFC 8831 §6.5) to create at once
    ///     (they open when the SCTP association is up); needs `parameters.sctp`. User data
    ///     packets are delivered to a transport with channels.
    ///   - dataPublisher: whether the participant's user data packets are forwarded (else dropped).
    ///   - dataRelay: the transport links this router to another node's router of the same
    ///     channel (docs/deploy.md, "Channels larger than a node"): its channels carry user data
    ///     relayed between the nodes (`DataPacket.Relayed`) both ways.
    ///   - joinedAt: when the participant joined (Unix ms): the first packet forwarded on this
    ///     transport is counted in `SFUMetrics.joinToFirstPacket`.
    public func createTransport(_ id: TransportID, router: RouterID, participant: ParticipantID,
                                parameters: PeerTransportParameters, dataChannels: [DataChannelInfo] = [],
                                dataPublisher: Bool = false, dataRelay: Bool = false, joinedAt: Int64? = nil) async throws(SFUError) {
        let port = self.port
        try await perform { core, now throws(SFUError) in
            guard core.routers[router] != nil else { throw .routerNotFound(router) }
            guard core.transports[id] == nil else { throw .duplicateID(id.rawValue) }
            let peer: PeerTransport
            do { peer = try port.makeTransport(parameters, delegate: nil) } catch {
                throw .transportCreationFailed(String(describing: error))
            }
            // On the I/O thread no packet can reach the transport before the delegate is set.
            let media = try core.createTransport(id, router: router, participant: participant, sink: peer, now: now)
            media.peer = peer
            media.carriesData = !dataChannels.isEmpty
            media.dataPublisher = dataPublisher
            media.dataRelay = dataRelay
            media.joinedAt = joinedAt
            peer.delegate = media
            for c in dataChannels {
                peer.openDataChannel(label: c.label, protocol: c.protocol, reliability: c.reliability, negotiatedID: c.id)
            }
        }
    }

    /// Sends one message on a transport's data channel, after everything posted before it
    /// (messages of one caller keep their order). Returns at once; a message for a closed
    /// transport or channel, or one too large for the peer, is dropped.
    public func sendData(_ data: [UInt8], binary: Bool, transport id: TransportID, channel: UInt16) {
        guard !stopped.load(ordering: .acquiring) else { return }
        let core = self.core
        port.execute {
            guard let peer = core.transports[id]?.peer else { return }
            data.withUnsafeBytes { raw in try? peer.sendData(raw, on: channel, binary: binary) }
        }
    }

    /// Delivers a user data packet from the customer's backend (docs/protocol.md, "Data
    /// messages") on `channel` of the router's participants in `uids` (empty: everyone), and to
    /// the other nodes the router's channel is relayed to, for their participants.
    /// - Returns: how many of this router's transports' channels took it.
    public func publishData(_ payload: [UInt8], topic: String?, channel: UInt16, router id: RouterID,
                            to uids: Set<String>) async throws(SFUError) -> Int {
        try await perform { core, _ throws(SFUError) in
            guard let router = core.routers[id] else { throw .routerNotFound(id) }
            do { return try router.data.publish(payload: payload, topic: topic, channel: channel, to: uids, among: router.transports) } catch {
                throw .invalidParameters("data packet: \(error)")
            }
        }
    }

    /// The user data counters of a router.
    public func dataCounters(router id: RouterID) async -> DataRoutingCounters? {
        try? await perform { core, _ in core.routers[id]?.data.counters }
    }

    /// ICE restart of a transport (RFC 8445 §9): new local and remote credentials, DTLS and SRTP
    /// kept, producers and consumers untouched. The peer's next nominated check may come from a
    /// new address, and media moves there. A transport whose DTLS never completed (even a failed
    /// one) starts DTLS over, with the channels it was created with.
    public func restartICE(_ id: TransportID, local: ICECredentials, remote: ICECredentials) async throws(SFUError) {
        try await perform { core, _ throws(SFUError) in
            guard let transport = core.transports[id], let peer = transport.peer else { throw .transportNotFound(id) }
            peer.restartICE(local: local, remote: remote)
        }
    }

    /// Gives a transport made with `PeerTransportParameters.awaitingAnswer` the peer's answer.
    public func completeNegotiation(_ id: TransportID, remoteICE: ICECredentials, remoteFingerprint: DTLSFingerprint) async throws(SFUError) {
        try await perform { core, _ throws(SFUError) in
            guard let transport = core.transports[id], let peer = transport.peer else { throw .transportNotFound(id) }
            peer.completeNegotiation(remoteICE: remoteICE, remoteFingerprint: remoteFingerprint)
        }
    }

    /// Closes a transport, its producers and its consumers (reported as closed with
    /// `transportClosed`, and their consumers elsewhere with `producerClosed`).
    public func closeTransport(_ id: TransportID) async {
        _ = try? await perform { core, _ in core.closeTransport(id) }
    }

    // MARK: - Producers

    /// Starts receiving a published track on `transport`.
    /// - Parameters:
    ///   - parameters: the publisher's negotiated m-section: codec(s), header extension ids, mid,
    ///     and its encodings best first (rids for simulcast, with their layer descriptions).
    ///   - muted: a muted producer forwards nothing.
    public func produce(_ id: ProducerID, transport: TransportID, kind: MediaKind, parameters: RTPParameters,
                        muted: Bool = false) async throws(SFUError) {
        try await perform { core, _ throws(SFUError) in
            try core.produce(id, transport: transport, kind: kind, parameters: parameters, muted: muted)
        }
    }

    /// Stops a producer; its consumers close (`consumerClosed` with `producerClosed`).
    public func closeProducer(_ id: ProducerID) async {
        _ = try? await perform { core, _ in core.closeProducer(id) }
    }

    /// Mutes or unmutes a producer; unmuting asks the publisher for a key frame.
    public func setProducerMuted(_ id: ProducerID, muted: Bool) async throws(SFUError) {
        try await perform { core, now throws(SFUError) in try core.setProducerMuted(id, muted: muted, now: now) }
    }

    // MARK: - Consumers

    /// Starts forwarding `producer` to `transport`.
    /// - Parameters:
    ///   - parameters: the subscriber's side of the m-section: the codec with its payload type and
    ///     rtcp-fb, header extension ids, mid; `encodings[0].ssrc` when the server chose the SSRC
    ///     (otherwise the SFU picks one and returns it).
    ///   - preferredLayer: a simulcast layer's description or rid; nil for the best layer.
    /// - Returns: the SSRC and payload type to put in the subscriber's offer.
    public func consume(_ id: ConsumerID, transport: TransportID, producer: ProducerID, parameters: RTPParameters,
                        preferredLayer: String? = nil, paused: Bool = false) async throws(SFUError) -> ConsumerInfo {
        try await perform { core, now throws(SFUError) in
            try core.consume(id, transport: transport, producer: producer, parameters: parameters,
                             preferredLayer: preferredLayer, paused: paused, now: now)
        }
    }

    /// Stops a consumer.
    public func closeConsumer(_ id: ConsumerID) async {
        _ = try? await perform { core, _ in core.closeConsumer(id) }
    }

    /// Pauses (forwards nothing) or resumes a consumer; resuming video waits for a key frame.
    public func setConsumerPaused(_ id: ConsumerID, paused: Bool) async throws(SFUError) {
        try await perform { core, now throws(SFUError) in try core.setConsumerPaused(id, paused: paused, now: now) }
    }

    /// Changes a simulcast consumer's preferred layer (nil: the best). The switch happens on the
    /// layer's next key frame and is reported with `layerSwitched` (`requested`).
    public func setPreferredLayer(_ id: ConsumerID, layer: String?) async throws(SFUError) {
        try await perform { core, now throws(SFUError) in try core.setPreferredLayer(id, layer: layer, now: now) }
    }

    /// Asks the consumer's producer for a key frame (throttled).
    public func requestKeyFrame(_ id: ConsumerID) async throws(SFUError) {
        try await perform { core, now throws(SFUError) in try core.requestKeyFrame(id, now: now) }
    }

    // MARK: - Statistics

    /// Counters of a consumer, for metrics and tests.
    public func stats(of id: ConsumerID) async throws(SFUError) -> ConsumerStats {
        try await perform { core, _ throws(SFUError) in
            guard let consumer = core.consumers[id] else { throw .consumerNotFound(id) }
            return ConsumerStats(consumer)
        }
    }

    /// Counters of a transport, for metrics and tests.
    public func stats(of id: TransportID) async throws(SFUError) -> TransportStats {
        try await perform { core, now throws(SFUError) in
            guard let transport = core.transports[id] else { throw .transportNotFound(id) }
            return TransportStats(transport, now: now)
        }
    }

    /// Forwarding-latency percentiles since the last call: a packet's arrival in the SFU to the
    /// kernel taking each copy (`srtc_media_forwarding_latency_seconds`).
    public func takeForwardingLatency() async -> ForwardingLatency? {
        try? await perform { core, _ in
            var now = LogHistogram()  // its own buffer: sharing the recorder's would make the packet path copy it
            now.merge(core.metrics.forwardingLatency())
            let window = now.subtracting(core.latencyTaken)
            core.latencyTaken = now
            return ForwardingLatency(samples: UInt64(window.count), p50Micros: Int(window.percentile(0.5)),
                                     p99Micros: Int(window.percentile(0.99)))
        }
    }

    /// The media plane's counters and distributions as published in the last second (any thread).
    public var metrics: SFUMetrics { core.metrics.latest }

    /// Live routers and transports now (any thread; exact, unlike `metrics`, which is up to a
    /// second old).
    public var liveCounts: (routers: Int, transports: Int) {
        (core.liveRouters.load(ordering: .relaxed), core.liveTransports.load(ordering: .relaxed))
    }
}
