import Foundation
import RTCCrypto
import RTCNet
import RTCTransport
import SFU
import SRTCProtocol

/// On a channel's node: the relay of the channel to one relaying node (docs/deploy.md, "Channels
/// larger than a node"). One node-to-node transport on the channel's router, served like any
/// subscriber's (ICE-lite, DTLS server, SRTP): a consumer per relayed track, at the best layer one
/// of the relaying node's sessions asks for, so the relaying node receives each track once,
/// whatever number of its subscribers take it. User data crosses its data channels both ways
/// (`DataFanOut`). The relaying node is driven with `EdgeCall`s.
actor EdgeRelay {
    let node: NodeInfo
    let key: ChannelKey
    private let server: MediaServer
    /// The channel's worker: the relay's transport is on its port, like the channel's router.
    private let worker: MediaWorker
    private let router: RouterID
    private let caller: ClusterForwarder
    /// Names this relay's transport and consumers in the SFU: new after `forget`, and never the
    /// one of a relay to a previous process of the node, which may still be closing.
    private var tag = SecureRandom.string(count: 8)
    private var transportID: TransportID { TransportID("~edge:\(node.id)#\(tag)@\(router.rawValue)") }
    private var opened = false

    /// The relayed tracks: their consumers here and the layers the sessions there asked for.
    private var tracks = RelayedTracks()

    init(node: NodeInfo, key: ChannelKey, server: MediaServer, worker: MediaWorker, router: RouterID, caller: ClusterForwarder) {
        self.node = node
        self.key = key
        self.server = server
        self.worker = worker
        self.router = router
        self.caller = caller
    }

    /// The subscriber the relay's consumers stand for in the SFU's events: `~edge:<node id>`
    /// (no user's uid starts with `~`).
    nonisolated var subscriberUid: String { Self.subscriberPrefix + node.id }
    static let subscriberPrefix = "~edge:"

    /// The RTP parameters of a relayed track on both ends of the uplink: the codec at our default
    /// payload type with its feedback (NACK, PLI, FIR for video), one stream with `ssrc`. Audio
    /// has RED around Opus (RFC 2198, docs/network.md "RED across nodes"): RED from the publisher
    /// crosses as RED, and the far end's producer forwards it to its RED subscribers and strips
    /// it for the others, as the channel's node does.
    static func parameters(of track: TrackInfo, ssrc: UInt32) -> RTPParameters {
        let codecs: [RTPCodecParameters]
        if track.kind == .audio {
            codecs = [.opus(), .red()]
        } else if track.codec?.lowercased() == "h264" {
            codecs = [track.profileLevelID.map { RTPCodecParameters.h264(profileLevelID: $0) } ?? .h264()]
        } else {
            codecs = [.vp8()]
        }
        return RTPParameters(codecs: codecs, encodings: [RTPEncodingParameters(ssrc: ssrc)])
    }

    /// Calls the relaying node; its refusal is thrown as it answered.
    func call(_ call: EdgeCall) async throws(SignalError) -> EdgeAnswer {
        guard let app = caller.apps.app(id: key.appId) else { throw SignalError(.internalError, "no app \(key.appId)") }
        let response: HTTPResponse
        do {
            response = try await caller.call("POST", EdgeService.path, body: JSONBody.encode(call), app: app, on: node,
                                             now: Int64(Date().timeIntervalSince1970))
        } catch {
            throw SignalError(.internalError, "the relaying node \(node.id) cannot be reached: \(error)")
        }
        guard response.status == 200 else {
            throw (try? JSONDecoder().decode(SignalError.self, from: Data(response.body)))
                ?? SignalError(.internalError, "the relaying node \(node.id) answered \(response.status)")
        }
        guard let answer = try? JSONDecoder().decode(EdgeAnswer.self, from: Data(response.body)) else {
            throw SignalError(.internalError, "the relaying node \(node.id) answered what is not an EdgeAnswer")
        }
        return answer
    }

    func makeCall(_ op: EdgeCall.Op) -> EdgeCall { EdgeCall(op, channel: key.name, owner: caller.directory.registry.nodeId) }

    /// Makes `track` arrive at the relaying node (once) and records that `session` there takes it at `layer`.
    func include(_ track: TrackInfo, session: String, layer: String?) async throws(SignalError) {
        try await open()
        if !tracks.carries(track.id) {
            let ssrc = SecureRandom.uint32() | 1
            var receive = makeCall(.track)
            receive.track = track
            receive.ssrc = ssrc
            _ = try await call(receive)
            let consumer = ConsumerID("~edge:\(node.id)#\(tag)/\(track.id)")
            do {
                _ = try await worker.sfu.consume(consumer, transport: transportID, producer: ProducerID(track.id),
                                                    parameters: Self.parameters(of: track, ssrc: ssrc), preferredLayer: layer)
            } catch {
                throw SignalError(.internalError, "cannot relay track \(track.id): \(error)")
            }
            // Its layer switches reach the sessions the relaying node serves this track to (`ChannelRoom.apply`).
            server.register(consumer: consumer, router: router, uid: subscriberUid, trackId: track.id)
            tracks.start(track.id, consumer: consumer, layers: track.layers, initial: layer)
        }
        await apply(tracks.take(track.id, session: session, layer: layer))
    }

    /// `session` there now takes `trackId` at `layer`.
    func setLayer(trackId: String, session: String, layer: String?) async {
        await apply(tracks.setLayer(trackId, session: session, layer: layer))
    }

    /// `session` there no longer takes `trackId`; the last one ends the track's relay.
    func exclude(trackId: String, session: String) async {
        let action = tracks.release(trackId, session: session)
        await apply(action)
        guard case .stop = action else { return }
        var stop = makeCall(.untrack)
        stop.trackId = trackId
        _ = try? await call(stop)
    }

    /// Every subscription `session` there had.
    func excludeAll(session: String) async {
        for trackId in tracks.trackIds(takenBy: session) { await exclude(trackId: trackId, session: session) }
    }

    /// Relays a simulcast track at the best layer any session there asked for, or stops relaying it.
    private func apply(_ action: RelayedTracks.Action?) async {
        switch action {
        case .setLayer(let consumer, let layer)?: try? await worker.sfu.setPreferredLayer(consumer, layer: layer)
        case .stop(let consumer)?:
            server.unregister(consumer: consumer)
            await worker.sfu.closeConsumer(consumer)
        case nil: break
        }
    }

    /// Opens the relay (once): the node-to-node transport, and the channel on the relaying node.
    func open() async throws(SignalError) {
        guard !opened else { return }
        let local = ICECredentials.random(), remote = ICECredentials.random()
        do {
            // User data crosses on its data channels (SCTP over its DTLS, the relaying node's
            // uplink makes the same two channels): `DataFanOut` relays it both ways.
            try await worker.sfu.createTransport(transportID, router: router, participant: ParticipantID("~edge:" + node.id),
                                                    parameters: .awaitingAnswer(localICE: local, certificate: server.certificate,
                                                                                sctp: SCTPParameters()),
                                                    dataChannels: SFUParticipantMedia.dataChannels, dataRelay: true)
        } catch {
            throw SignalError(.internalError, "cannot make the relay transport: \(error)")
        }
        var request = makeCall(.open)
        request.uplink = EdgeUplink(ufrag: remote.ufrag, pwd: remote.pwd, ownerUfrag: local.ufrag, ownerPwd: local.pwd,
                                    fingerprint: server.certificate.fingerprint.description,
                                    candidates: worker.udpAddresses)
        do {
            let answer = try await call(request)
            guard let value = answer.fingerprint, let fingerprint = try? DTLSFingerprint(sdpValue: value) else {
                throw SignalError(.internalError, "the relaying node sent no fingerprint")
            }
            try await worker.sfu.completeNegotiation(transportID, remoteICE: remote, remoteFingerprint: fingerprint)
        } catch let error as SignalError {
            await worker.sfu.closeTransport(transportID)
            throw error
        } catch {
            await worker.sfu.closeTransport(transportID)
            throw SignalError(.internalError, "cannot complete the relay transport: \(error)")
        }
        opened = true
    }

    /// The relaying node does not know this relay (it answered `not_found`): it restarted under
    /// the same node id, or closed the relay when it took this node for dead (`EdgeService`'s
    /// sweep). What this side keeps for it goes (consumers, transport, demand), so the next
    /// call opens the relay again. Sessions there that took its tracks have lost them with it.
    func forget() async {
        guard opened else { return }
        opened = false
        for consumer in tracks.removeAll() {
            server.unregister(consumer: consumer)
            await worker.sfu.closeConsumer(consumer)
        }
        await worker.sfu.closeTransport(transportID)
        tag = SecureRandom.string(count: 8)
        Log.info("cluster", "\(key): node \(node.id) no longer relays the channel; opening its relay again")
    }

    /// Whether `error`, answered by the relaying node, says it lost this relay.
    static func isLost(_ error: SignalError) -> Bool { error.errorCode == .notFound }

    /// Ends the relay on both nodes.
    func close() async {
        guard opened else { return }
        opened = false
        for consumer in tracks.removeAll() { server.unregister(consumer: consumer) }
        _ = try? await call(makeCall(.close))
        await worker.sfu.closeTransport(transportID)
    }
}
