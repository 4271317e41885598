import RTCCrypto
import RTCTransport
import RTCWire
import SFU
import SRTCProtocol

/// One participant's media on the SFU: the publish transport (client offers, server answers)
/// and the subscribe transport (server offers, client answers), with their SDP negotiation.
actor SFUParticipantMedia: ParticipantMedia {
    /// One m-section of the subscribe transport. Sections are reused after an unsubscribe.
    struct Slot {
        let mid: String
        let kind: MediaKind
        var trackId: String?
        var publisherUid: String?
        var ssrc: UInt32 = 0
        var layer: String?
        /// The publisher's codec name (TrackInfo.codec).
        var codec: String?
        /// The consumer exists on the SFU.
        var consuming = false
        /// The offer revision that first carried this subscription.
        var offeredIn = 0
    }

    let server: MediaServer
    let router: RouterID
    let uid: String
    let events: ParticipantMediaEvents
    /// Distinguishes this session's SFU objects from an earlier session of the same uid.
    let instance = SecureRandom.string(count: 8)

    private var publishTransport: TransportID?
    private var publishICE = ICECredentials.random()
    /// Tracks published, by id, with their mid.
    private var producers: [String: String] = [:]

    private var subscribeICE = ICECredentials.random()
    private var subscribeTransport: TransportID?
    /// The client's ICE credentials of each transport, to see an ICE restart in a new description.
    private var publishRemoteICE: ICECredentials?
    private var subscribeRemoteICE: ICECredentials?
    private var slots: [Slot] = []
    private var revision = 0
    /// The subscribe transport's `o=` session id, kept across revisions (RFC 3264 §8).
    private let subscribeSessionID = String(SecureRandom.uint32() & 0x7fff_ffff)
    private var closed = false

    init(server: MediaServer, router: RouterID, uid: String, events: ParticipantMediaEvents) {
        self.server = server
        self.router = router
        self.uid = uid
        self.events = events
    }

    private var participant: ParticipantID { ParticipantID(uid) }

    private func transportParameters(_ ice: ICECredentials, setup: SetupRole) -> TransportParameters {
        TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd, fingerprint: Fingerprint(algorithm: "sha-256", bytes: server.certificate.fingerprint.bytes),
                            setup: setup, candidates: server.candidates, endOfCandidates: true)
    }

    // MARK: - Publishing

    func publish(offer text: String, tracks: [PublishTrack], trackIds: [String: String]) async throws(SignalError) -> String {
        guard !closed else { throw SignalError(.wrongState, "media closed") }
        let offer: SessionDescription
        do { offer = try SessionDescription(parsing: text) } catch { throw SignalError(.invalidParameter, "offer is not valid SDP: \(error)") }
        for t in tracks {
            guard let section = offer.media(mid: t.mid), !section.isRejected else {
                throw SignalError(.invalidParameter, "offer has no active m-section with mid \(t.mid)")
            }
            guard section.kind == (t.kind == .audio ? .audio : .video) else {
                throw SignalError(.invalidParameter, "m-section \(t.mid) is not \(t.kind.rawValue)")
            }
        }
        let (remoteICE, fingerprint, setup) = try SDPConversions.remoteTransport(of: offer)
        // The client offers actpass (or active): the server answers passive and is the DTLS server.
        let answerSetup: SetupRole = setup == .passive ? .active : .passive
        // RFC 3264 §6.1: an m-section the client no longer sends on (unpublished) is answered inactive.
        var answer = offer.answer(AnswerOptions(
            transport: transportParameters(publishICE, setup: answerSetup), capabilities: ServerMedia.capabilities, iceLite: true,
            sessionID: String(SecureRandom.uint32() & 0x7fff_ffff), acceptDataChannel: false, direction: { $0.effectiveDirection.sends ? .recvonly : .inactive }))
        ServerMedia.keepFirstVideoCodec(&answer)
        if publishTransport != nil, let known = publishRemoteICE, known != remoteICE {
            throw SignalError(.invalidParameter, "the offer changes ICE credentials: send it with restart_ice")
        }
        if publishTransport == nil {
            publishRemoteICE = remoteICE
            let id = TransportID("\(uid)#\(instance)/publish")
            let parameters = PeerTransportParameters(iceRole: .lite, localICE: publishICE, remoteICE: remoteICE, certificate: server.certificate,
                                                     remoteFingerprint: fingerprint, dtlsRole: answerSetup == .passive ? .server : .client)
            do { try await server.worker.createTransport(id, router: router, participant: participant, parameters: parameters) } catch {
                throw SignalError(.internalError, "cannot create the publish transport: \(error)")
            }
            publishTransport = id
        }
        guard let transport = publishTransport else { throw SignalError(.internalError, "no publish transport") }
        for t in tracks {
            guard let trackId = trackIds[t.mid], let offered = offer.media(mid: t.mid), let answered = answer.media(mid: t.mid),
                  !answered.isRejected else {
                throw SignalError(.invalidParameter, "m-section \(t.mid) offers no codec the server forwards (Opus, VP8, H.264 packetization-mode 1 Constrained Baseline)")
            }
            let parameters = SDPConversions.producerParameters(offer: offered, answer: answered, track: t)
            do {
                try await server.worker.produce(ProducerID(trackId), transport: transport, kind: answered.kind, parameters: parameters, muted: t.muted)
            } catch {
                throw SignalError(.internalError, "cannot receive track \(t.mid): \(error)")
            }
            producers[trackId] = t.mid
        }
        return answer.serialize()
    }

    func unpublish(trackId: String, offer: String?) async throws(SignalError) -> String? {
        guard producers.removeValue(forKey: trackId) != nil else { throw SignalError(.notFound, "no producer \(trackId)") }
        await server.worker.closeProducer(ProducerID(trackId))
        guard let offer else { return nil }
        let parsed: SessionDescription
        do { parsed = try SessionDescription(parsing: offer) } catch { throw SignalError(.invalidParameter, "offer is not valid SDP") }
        let (_, _, setup) = try SDPConversions.remoteTransport(of: parsed)
        return parsed.answer(AnswerOptions(
            transport: transportParameters(publishICE, setup: setup == .passive ? .active : .passive), capabilities: ServerMedia.capabilities,
            iceLite: true, sessionID: String(SecureRandom.uint32() & 0x7fff_ffff), acceptDataChannel: false, direction: { $0.effectiveDirection.sends ? .recvonly : .inactive })).serialize()
    }

    func setMuted(trackId: String, muted: Bool) async {
        try? await server.worker.setProducerMuted(ProducerID(trackId), muted: muted)
    }

    // MARK: - Subscribing

    func subscribe(to track: TrackInfo, of publisher: ParticipantMedia, layer: String?) async throws(SignalError) {
        guard !closed else { throw SignalError(.wrongState, "media closed") }
        let kind: MediaKind = track.kind == .audio ? .audio : .video
        var slot: Slot
        if let free = slots.firstIndex(where: { $0.trackId == nil && $0.kind == kind }) {
            slot = slots.remove(at: free)
        } else {
            slot = Slot(mid: String(slots.count), kind: kind)
        }
        slot.trackId = track.id
        slot.publisherUid = track.uid
        slot.layer = layer
        slot.codec = track.codec
        slot.ssrc = SecureRandom.uint32() | 1
        slot.consuming = false
        slot.offeredIn = revision + 1
        slots.append(slot)
        slots.sort { Int($0.mid) ?? 0 < Int($1.mid) ?? 0 }
        await prepareSubscribeTransport()
        sendOffer()
    }

    /// Makes the subscribe transport with the first offer, so the client's checks are answered
    /// from its first one (RFC 8445 §7.3) instead of after our answer arrived: a client that
    /// checks at once (aiortc) otherwise waits out its retransmission timer.
    private func prepareSubscribeTransport() async {
        guard subscribeTransport == nil else { return }
        let id = TransportID("\(uid)#\(instance)/subscribe")
        do {
            try await server.worker.createTransport(id, router: router, participant: participant,
                                                    parameters: .awaitingAnswer(localICE: subscribeICE, certificate: server.certificate))
            subscribeTransport = id
        } catch {
            Log.warn("media", "\(uid) cannot create the subscribe transport early: \(error)")
        }
    }

    func setLayer(trackId: String, layer: String?) async throws(SignalError) {
        guard let index = slots.firstIndex(where: { $0.trackId == trackId }) else { throw SignalError(.notFound, "not subscribed to \(trackId)") }
        slots[index].layer = layer
        guard slots[index].consuming else { return }  // applied when the consumer starts
        do { try await server.worker.setPreferredLayer(consumerID(trackId), layer: layer) } catch {
            throw SignalError(.internalError, "cannot switch layer: \(error)")
        }
    }

    func unsubscribe(trackId: String) async {
        guard let index = slots.firstIndex(where: { $0.trackId == trackId }) else { return }
        if slots[index].consuming {
            await server.worker.closeConsumer(consumerID(trackId))
            server.unregister(consumer: consumerID(trackId))
        }
        slots[index].trackId = nil
        slots[index].publisherUid = nil
        slots[index].consuming = false
        sendOffer()
    }

    func applySubscriberAnswer(sdp: String, revision answered: Int) async throws(SignalError) {
        guard answered == revision else {
            throw SignalError(.wrongState, "answer is for offer \(answered); the current offer is \(revision)")
        }
        let answer: SessionDescription
        do { answer = try SessionDescription(parsing: sdp) } catch { throw SignalError(.invalidParameter, "answer is not valid SDP: \(error)") }
        let (remoteICE, fingerprint, setup) = try SDPConversions.remoteTransport(of: answer)
        if let transport = subscribeTransport, let known = subscribeRemoteICE, known != remoteICE {
            // The answer to an ICE-restart offer: both sides have new credentials now.
            do { try await server.worker.restartICE(transport, local: subscribeICE, remote: remoteICE) } catch {
                throw SignalError(.internalError, "ICE restart failed: \(error)")
            }
            subscribeRemoteICE = remoteICE
        }
        if let early = subscribeTransport, subscribeRemoteICE == nil {
            // The transport made with the first offer (it has been answering the client's checks).
            subscribeRemoteICE = remoteICE
            if setup == .passive {
                // The client wants to be the DTLS server: the early transport assumed otherwise.
                await server.worker.closeTransport(early)
                subscribeTransport = nil
            } else {
                do { try await server.worker.completeNegotiation(early, remoteICE: remoteICE, remoteFingerprint: fingerprint) } catch {
                    throw SignalError(.internalError, "cannot complete the subscribe transport: \(error)")
                }
            }
        }
        if subscribeTransport == nil {
            subscribeRemoteICE = remoteICE
            let id = TransportID("\(uid)#\(instance)/subscribe-\(revision)")
            // We offered actpass; the client's answer picks active (it is the DTLS client) or passive.
            let parameters = PeerTransportParameters(iceRole: .lite, localICE: subscribeICE, remoteICE: remoteICE, certificate: server.certificate,
                                                     remoteFingerprint: fingerprint, dtlsRole: setup == .passive ? .client : .server)
            do { try await server.worker.createTransport(id, router: router, participant: participant, parameters: parameters) } catch {
                throw SignalError(.internalError, "cannot create the subscribe transport: \(error)")
            }
            subscribeTransport = id
        }
        guard let transport = subscribeTransport else { return }
        for i in slots.indices where !slots[i].consuming && slots[i].offeredIn <= answered {
            guard let trackId = slots[i].trackId, let section = answer.media(mid: slots[i].mid), !section.isRejected,
                  let codec = section.codecs.first(where: { !$0.isRTX }) else { continue }
            let parameters = RTPParameters(mid: slots[i].mid, codecs: [SDPConversions.codec(codec)],
                                           headerExtensions: SDPConversions.extensions(section),
                                           encodings: [RTPEncodingParameters(ssrc: slots[i].ssrc)], cname: slots[i].publisherUid)
            do {
                _ = try await server.worker.consume(consumerID(trackId), transport: transport, producer: ProducerID(trackId),
                                                    parameters: parameters, preferredLayer: slots[i].layer)
                server.register(consumer: consumerID(trackId), router: router, uid: uid, trackId: trackId)
                slots[i].consuming = true
            } catch {
                Log.warn("media", "\(uid) cannot consume \(trackId): \(error)")
            }
        }
    }

    func restartICE(_ transport: TransportRole, offer text: String?) async throws(SignalError) -> String? {
        switch transport {
        case .publish:
            guard let id = publishTransport else { throw SignalError(.wrongState, "nothing published yet") }
            guard let text else { throw SignalError(.malformedBody, "restart_ice for publish needs the client's new offer in sdp") }
            let offer: SessionDescription
            do { offer = try SessionDescription(parsing: text) } catch { throw SignalError(.invalidParameter, "offer is not valid SDP: \(error)") }
            let (remoteICE, _, setup) = try SDPConversions.remoteTransport(of: offer)
            guard remoteICE != publishRemoteICE else { throw SignalError(.invalidParameter, "an ICE restart offer needs new ice-ufrag and ice-pwd") }
            publishICE = ICECredentials.random()
            publishRemoteICE = remoteICE
            do { try await server.worker.restartICE(id, local: publishICE, remote: remoteICE) } catch {
                throw SignalError(.internalError, "ICE restart failed: \(error)")
            }
            return offer.answer(AnswerOptions(
                transport: transportParameters(publishICE, setup: setup == .passive ? .active : .passive), capabilities: ServerMedia.capabilities,
                iceLite: true, sessionID: String(SecureRandom.uint32() & 0x7fff_ffff), acceptDataChannel: false,
                direction: { $0.effectiveDirection.sends ? .recvonly : .inactive })).serialize()
        case .subscribe:
            guard subscribeTransport != nil else { throw SignalError(.wrongState, "no subscribe transport yet") }
            // New server credentials go out in a new offer; the answer's new client credentials
            // complete the restart (applySubscriberAnswer).
            subscribeICE = ICECredentials.random()
            sendOffer()
            return nil
        }
    }

    func close() async {
        closed = true
        for slot in slots where slot.consuming {
            if let trackId = slot.trackId { server.unregister(consumer: consumerID(trackId)) }
        }
        if let publishTransport { await server.worker.closeTransport(publishTransport) }
        if let subscribeTransport { await server.worker.closeTransport(subscribeTransport) }
        publishTransport = nil
        subscribeTransport = nil
    }

    // MARK: - Offers

    private func consumerID(_ trackId: String) -> ConsumerID { ConsumerID("\(uid)#\(instance)/\(trackId)") }

    /// Builds the subscribe transport's offer from the slots and sends it with a new revision.
    private func sendOffer() {
        revision += 1
        let media = slots.map { slot -> MediaDescription in
            let codec = ServerMedia.subscriberCodec(kind: slot.kind, trackCodec: slot.codec)
            var section = MediaDescription(kind: slot.kind, mid: slot.mid, direction: slot.trackId == nil ? .inactive : .sendonly,
                                           codecs: [codec], extensions: ServerMedia.subscriberExtensions(for: slot.kind))
            section.rtcpMux = true
            section.rtcpReducedSize = true
            if let trackId = slot.trackId, let publisher = slot.publisherUid {
                section.addSendStream(ssrc: slot.ssrc, cname: publisher, streamID: publisher, trackID: trackId)
            }
            return section
        }
        // Same session id, version + 1 per revision (RFC 3264 §8: revision 1 has version 2).
        let offer = SessionDescription.offer(sessionID: subscribeSessionID, sessionVersion: UInt64(revision) + 1,
                                             transport: transportParameters(subscribeICE, setup: .actpass), media: media, iceLite: true)
        events.subscriberOffer(uid: uid, sdp: offer.serialize(), revision: revision)
    }
}
