import Foundation
import RTCNet
import RTCTransport
import SFU
import SRTCProtocol
import Synchronization

/// One channel another node runs, relayed by this node (docs/deploy.md, "Channels larger than a
/// node"): a router of its own on this node's SFU, an uplink transport to the channel's node on
/// which the channel's tracks arrive as producers, and the subscribe side of the sessions the
/// channel's node placed here. Each session is an ordinary `SFUParticipantMedia` on that router,
/// so its consumers answer NACKs from this node's packet cache, and their key-frame requests
/// reach the publisher through the uplink (the producer here asks the consumer there, which asks
/// the publisher's producer). User data crosses the uplink's data channels both ways
/// (`DataFanOut`). The channel's node drives every step with `EdgeCall`s.
actor EdgeChannel {
    let server: MediaServer
    /// The worker this relayed channel's router lives on (placed like a channel of this node).
    let worker: MediaWorker
    /// The id of the channel's node, which drives this relay.
    nonisolated let owner: String
    let router: RouterID
    private let uplinkID: TransportID
    /// Where the SFU's events for this router go (the clients' data channels and WebSockets).
    private let events: EdgeEvents
    private var opened = false
    /// Tracks received on the uplink.
    private var tracks: Set<String> = []
    /// Subscribe sides by the channel node's session instance.
    private var sessions: [String: (media: SFUParticipantMedia, offers: OfferCollector)] = [:]

    init(server: MediaServer, name: String, owner: String, clients: EdgeClients) {
        self.server = server
        worker = server.placeChannel()
        self.owner = owner
        router = RouterID("edge:" + name)
        uplinkID = TransportID("edge:" + name + "/uplink")
        events = EdgeEvents(channel: name, clients: clients)
    }

    /// Performs `call`; throws what the client or the channel's node should hear.
    func perform(_ call: EdgeCall) async throws(SignalError) -> EdgeAnswer {
        switch call.op {
        case .open:
            guard let uplink = call.uplink else { throw SignalError(.malformedBody, "open needs uplink") }
            return EdgeAnswer(fingerprint: try await open(uplink))
        case .track:
            guard let track = call.track, let ssrc = call.ssrc, ssrc != 0 else { throw SignalError(.malformedBody, "track needs track and ssrc") }
            try await receive(track, ssrc: ssrc)
            return EdgeAnswer()
        case .untrack:
            guard let id = call.trackId, tracks.remove(id) != nil else { return EdgeAnswer() }
            events.removed(trackId: id)
            await worker.sfu.closeProducer(ProducerID(id))
            return EdgeAnswer()
        case .close:
            await close()
            return EdgeAnswer()
        case .subscribe, .unsubscribe, .answer, .restart, .channels, .leave:
            return try await session(call)
        }
    }

    private func open(_ uplink: EdgeUplink) async throws(SignalError) -> String {
        let fingerprint = server.certificate.fingerprint.description
        guard !opened else { return fingerprint }
        let candidates = uplink.candidates.compactMap { text -> ICECandidate? in
            let parts = text.split(separator: " ")
            guard parts.count == 2, let port = UInt16(parts[1]), let address = SocketAddress(ip: String(parts[0]), port: port) else { return nil }
            return ICECandidate(address: address)
        }
        guard !candidates.isEmpty else { throw SignalError(.invalidParameter, "open needs the channel node's candidates") }
        let remoteFingerprint: DTLSFingerprint
        do { remoteFingerprint = try DTLSFingerprint(sdpValue: uplink.fingerprint) } catch {
            throw SignalError(.invalidParameter, "bad fingerprint")
        }
        // This node is the full ICE agent and the DTLS client of the pair: the channel's node
        // serves the uplink like any subscriber's transport.
        let parameters = PeerTransportParameters(
            iceRole: .controlling, localICE: ICECredentials(ufrag: uplink.ufrag, pwd: uplink.pwd),
            remoteICE: ICECredentials(ufrag: uplink.ownerUfrag, pwd: uplink.ownerPwd), remoteCandidates: candidates,
            certificate: server.certificate, remoteFingerprint: remoteFingerprint, dtlsRole: .client, sctp: SCTPParameters())
        do {
            try await worker.sfu.createRouter(router)
            server.register(sink: events, router: router)
            // Its data channels carry the channel's user data both ways (`DataFanOut`).
            try await worker.sfu.createTransport(uplinkID, router: router, participant: ParticipantID("~owner"), parameters: parameters,
                                                    dataChannels: SFUParticipantMedia.dataChannels, dataRelay: true)
        } catch {
            server.unregister(router: router)
            await worker.sfu.closeRouter(router)
            throw SignalError(.internalError, "cannot open the uplink: \(error)")
        }
        opened = true
        return fingerprint
    }

    private func receive(_ track: TrackInfo, ssrc: UInt32) async throws(SignalError) {
        guard opened else { throw SignalError(.wrongState, "open first") }
        guard !tracks.contains(track.id) else { return }
        do {
            try await worker.sfu.produce(ProducerID(track.id), transport: uplinkID, kind: track.kind == .audio ? .audio : .video,
                                            parameters: EdgeRelay.parameters(of: track, ssrc: ssrc))
        } catch {
            throw SignalError(.internalError, "cannot receive track \(track.id): \(error)")
        }
        tracks.insert(track.id)
        events.received(track)
    }

    private func session(_ call: EdgeCall) async throws(SignalError) -> EdgeAnswer {
        guard opened else { throw SignalError(.wrongState, "open first") }
        guard let id = call.session, let uid = call.uid, Identifier.isValid(uid) else {
            throw SignalError(.malformedBody, "session calls need session and uid")
        }
        if call.op == .leave {
            await sessions.removeValue(forKey: id)?.media.close()
            return EdgeAnswer()
        }
        let session = sessions[id] ?? {
            let offers = OfferCollector()
            let media = SFUParticipantMedia(server: server, worker: worker, router: router, uid: uid, joinedAt: unixMilliseconds(), events: offers)
            sessions[id] = (media, offers)
            return (media, offers)
        }()
        switch call.op {
        case .subscribe:
            guard let track = call.track else { throw SignalError(.malformedBody, "subscribe needs track") }
            guard tracks.contains(track.id) else { throw SignalError(.notFound, "track \(track.id) is not relayed here") }
            try await session.media.subscribe(to: track, of: session.media, layer: call.layer)
        case .unsubscribe:
            guard let trackId = call.trackId else { throw SignalError(.malformedBody, "unsubscribe needs trackId") }
            await session.media.unsubscribe(trackId: trackId)
        case .answer:
            guard let sdp = call.sdp, let revision = call.revision else { throw SignalError(.malformedBody, "answer needs sdp and revision") }
            try await session.media.applySubscriberAnswer(sdp: sdp, revision: revision)
        case .restart:
            _ = try await session.media.restartICE(.subscribe, offer: nil)
        case .channels:
            // User data it publishes goes to the recipients here and, over the uplink, to the
            // channel's node, which delivers it to its own and relays it to the other nodes.
            await session.media.openDataChannels(publishData: call.publishData ?? false)
        default:
            break
        }
        return EdgeAnswer(offers: session.offers.take())
    }

    /// Closes every session, the uplink and the router.
    func close() async {
        for (_, session) in sessions { await session.media.close() }
        sessions = [:]
        tracks = []
        if opened {
            server.unregister(router: router)
            await worker.sfu.closeRouter(router)
        }
        opened = false
    }
}

/// Keeps the offers a relayed session's media made during one call, for its answer.
final class OfferCollector: MediaEventSink {
    private let offers = Mutex<[SessionDescriptionMessage]>([])

    @discardableResult
    func post(_ event: RoomEvent) -> Bool {
        guard case .subscriberOffer(_, let sdp, let revision) = event else { return true }
        offers.withLock { $0.append(SessionDescriptionMessage(sdp: sdp, revision: revision)) }
        return true
    }

    func take() -> [SessionDescriptionMessage] {
        offers.withLock { o in defer { o = [] }; return o }
    }
}
