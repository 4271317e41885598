import Foundation
import RTCNet
import RTCTransport
import RTCWire
import SRTCProtocol
import Synchronization
import TestWait

/// A participant for end-to-end tests, written on the transport layer so a test controls every
/// packet: signaling over a real WebSocket, a publish transport (this client offers) and a
/// subscribe transport (it answers the server's offers, revision by revision).
// @unchecked Sendable: the publish state and relays are set by the test's own calls, one at a time; the answer task uses the Mutex-guarded state, and reads `subscribeRelay` only for an offer, which follows a subscribe request sent after the relay was set.
public final class MediaTestClient: @unchecked Sendable {
    public let uid: String
    public let joined: JoinResponse
    let certificate: DTLSCertificate
    var publishICE = ICECredentials.random()
    private var publishMedia: [MediaDescription] = []
    public private(set) var publishEndpoint: TransportEndpoint?
    private struct SubscribeState {
        var endpoint: TransportEndpoint?
        var answered = 0
        var offers: [SessionDescription] = []
        /// Our credentials on the subscribe transport; an ICE restart (a server offer with new
        /// credentials) replaces them.
        var ice = ICECredentials.random()
    }
    private let subscribeState = Mutex(SubscribeState())
    /// The signaling connection; `resume()` replaces it.
    private let signalState: Mutex<TestSignalClient>
    private var answerTask: Task<Void, Never>?
    private let wsURL: String
    private let token: String

    /// The current signaling connection.
    public var signal: TestSignalClient { signalState.withLock { $0 } }

    /// Set before the first subscription to route the subscribe transport through a lossy relay.
    public var subscribeRelay: LossyRelay?
    /// Set before publishing to route the publish transport through a relay.
    public var publishRelay: LossyRelay?

    /// Takes the subscribe transport's data channels (asked for in `join`).
    public let dataChannels: Bool

    /// Connects and joins `channel` as `uid`.
    public convenience init(server: TestServer, uid: String, channel: String, dataChannels: Bool = false) async throws {
        try await self.init(signalingURL: server.wsURL, uid: uid, token: server.token(uid: uid, channel: channel), dataChannels: dataChannels)
    }

    /// Connects and joins with `token` (one a meeting handed out, for example).
    public convenience init(server: TestServer, uid: String, token: String, dataChannels: Bool = false) async throws {
        try await self.init(signalingURL: server.wsURL, uid: uid, token: token, dataChannels: dataChannels)
    }

    /// Connects to the signaling WebSocket at `signalingURL` (a node in its own process, say) and joins with `token`.
    public init(signalingURL: String, uid: String, token: String, dataChannels: Bool = false) async throws {
        self.uid = uid
        self.wsURL = signalingURL
        self.token = token
        self.dataChannels = dataChannels
        let signal = try await TestSignalClient(url: signalingURL)
        signalState = Mutex(signal)
        joined = try await signal.join(token: token, dataChannel: dataChannels ? true : nil)
        certificate = try DTLSCertificate()
        answerTask = Task { [weak self] in await self?.answerOffers() }
    }

    /// Drops the signaling WebSocket without `leave` and resumes the session on a new one, as a
    /// client whose network blinked does (docs/protocol.md, "Reconnection"). Media is untouched.
    public func resume() async throws {
        signal.socket.close(code: WebSocketCloseCode(4000), reason: "network blinked")
        _ = await signal.socket.closed()
        let fresh = try await TestSignalClient(url: wsURL)
        let response = try await fresh.join(token: token, sessionId: joined.sessionId, dataChannel: dataChannels ? true : nil)
        guard response.resumed else { throw TestSignalClient.Failure(description: "\(uid) was not resumed") }
        signalState.withLock { $0 = fresh }
    }

    deinit { answerTask?.cancel() }

    /// The subscribe transport, once the first offer was answered.
    public var subscribeEndpoint: TransportEndpoint? { subscribeState.withLock { $0.endpoint } }
    /// The newest subscriber offer seen.
    public var latestOffer: SessionDescription? { subscribeState.withLock { $0.offers.last } }

    // MARK: - Publishing

    /// A video track's simulcast layer as this client sends it.
    public struct VideoLayer: Sendable {
        public var rid: String, desc: String, ssrc: UInt32, width: Int, height: Int
        public init(rid: String, desc: String, ssrc: UInt32, width: Int, height: Int) {
            self.rid = rid; self.desc = desc; self.ssrc = ssrc; self.width = width; self.height = height
        }
    }

    /// Header extension ids of this client's offers (Chrome's).
    public static let audioLevelID: UInt8 = 1, absSendTimeID: UInt8 = 2, twccID: UInt8 = 3, midID: UInt8 = 4, ridID: UInt8 = 10

    /// Publishes an Opus track (mid 0, `audioSSRC`) and, when `video` is not empty, a simulcast VP8
    /// camera track (mid 1) with those layers; waits until the publish transport is connected.
    public func publish(audioSSRC: UInt32? = 0xA0D1_0001, video: [VideoLayer] = []) async throws -> [TrackInfo] {
        var media: [MediaDescription] = []
        var tracks: [PublishTrack] = []
        if let audioSSRC {
            var audio = MediaDescription(kind: .audio, mid: "0", direction: .sendonly, codecs: [.opus()],
                                         extensions: [ExtMap(id: UInt16(Self.audioLevelID), uri: RTPHeaderExtensionURI.audioLevel),
                                                      ExtMap(id: UInt16(Self.twccID), uri: RTPHeaderExtensionURI.transportWideCC),
                                                      ExtMap(id: UInt16(Self.midID), uri: RTPHeaderExtensionURI.mid)])
            audio.rtcpMux = true
            audio.addSendStream(ssrc: audioSSRC, cname: uid, streamID: uid, trackID: "mic")
            media.append(audio)
            tracks.append(PublishTrack(mid: "0", kind: .audio, desc: TrackDescName.mic))
        }
        if !video.isEmpty {
            var section = MediaDescription(kind: .video, mid: "1", direction: .sendonly,
                                           codecs: [Codec(payloadType: 96, name: "VP8", clockRate: 90_000, feedback: [
                                               RTCPFeedback(type: "nack"), RTCPFeedback(type: "nack", parameter: "pli"),
                                               RTCPFeedback(type: "ccm", parameter: "fir"), RTCPFeedback(type: "transport-cc")])],
                                           extensions: [ExtMap(id: UInt16(Self.twccID), uri: RTPHeaderExtensionURI.transportWideCC),
                                                        ExtMap(id: UInt16(Self.midID), uri: RTPHeaderExtensionURI.mid),
                                                        ExtMap(id: UInt16(Self.ridID), uri: RTPHeaderExtensionURI.rid)])
            section.rtcpMux = true
            section.setSendSimulcast(rids: video.map(\.rid))
            media.append(section)
            tracks.append(PublishTrack(mid: "1", kind: .video, desc: TrackDescName.cameraBig,
                                       layers: video.map { SimulcastLayer(rid: $0.rid, desc: $0.desc, width: $0.width, height: $0.height) }))
        }
        publishMedia = media
        let offer = SessionDescription.offer(sessionID: "1", transport: transportParameters(publishICE, setup: .actpass), media: media)
        guard case .success(.answer(let response)) = try await signal.request(.publish(PublishRequest(sdp: offer.serialize(), tracks: tracks))) else {
            throw TestSignalClient.Failure(description: "publish refused")
        }
        let answer = try SessionDescription(parsing: response.sdp)
        if publishEndpoint == nil {
            let endpoint = try TransportEndpoint(localICE: publishICE, certificate: certificate, remote: answer, relay: publishRelay)
            publishEndpoint = endpoint
            try await endpoint.waitConnected()
        }
        return response.tracks
    }

    /// ICE restart of the subscribe transport: the server offers new credentials, which the answer
    /// (see `answerOffers`) matches with new ones of ours, sending checks to `relay` or to the
    /// server's candidates. Returns once the restart's offer was answered; throws `WaitTimeout` when
    /// no offer was answered within 10 s (the soak counts that as a failed restart).
    public func restartSubscribeICE() async throws {
        let before = subscribeState.withLock { $0.answered }
        let result = try await signal.request(.restartICE(RestartICERequest(transport: .subscribe)))
        guard case .success = result else { throw TestSignalClient.Failure(description: "restart_ice subscribe: \(result)") }
        try await eventually(timeout: 10, "\(uid)'s subscribe ICE restart offer answered") {
            subscribeState.withLock { $0.answered } > before
        }
    }

    /// ICE restart of the publish transport with new credentials (`restart_ice`), sending the new
    /// checks to `relay` (a new network path) or to the server's candidates.
    public func restartPublishICE(via relay: LossyRelay?) async throws {
        guard let endpoint = publishEndpoint else { throw TestSignalClient.Failure(description: "publish first") }
        publishICE = ICECredentials.random()
        let offer = SessionDescription.offer(sessionID: "1", transport: transportParameters(publishICE, setup: .actpass), media: publishMedia)
        guard case .success(.answer(let response)) = try await signal.request(.restartICE(RestartICERequest(transport: .publish, sdp: offer.serialize()))) else {
            throw TestSignalClient.Failure(description: "restart_ice refused")
        }
        let answer = try SessionDescription(parsing: response.sdp)
        guard let section = answer.media.first else { throw TestSignalClient.Failure(description: "answer has no media") }
        guard let ufrag = answer.iceUfrag(of: section), let pwd = answer.icePwd(of: section) else { throw TestSignalClient.Failure(description: "answer lacks ICE credentials") }
        let candidates = relay.map { [ICECandidate(address: $0.address)] } ?? Self.candidates(of: answer)
        endpoint.transport.restartICE(local: publishICE, remote: ICECredentials(ufrag: ufrag, pwd: pwd), remoteCandidates: candidates)
    }

    func transportParameters(_ ice: ICECredentials, setup: SetupRole) -> TransportParameters {
        TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                            fingerprint: Fingerprint(algorithm: "sha-256", bytes: certificate.fingerprint.bytes), setup: setup)
    }

    // MARK: - Subscribing

    /// Subscribes to a remote track and waits until the server's offer carrying it was answered.
    public func subscribe(_ trackId: String, layer: String? = nil) async throws {
        let before = subscribeState.withLock { $0.answered }
        let result = try await signal.request(.subscribe(SubscribeRequest(trackId: trackId, layer: layer)))
        guard case .success = result else { throw TestSignalClient.Failure(description: "subscribe \(trackId): \(result)") }
        try await eventually("the offer carrying \(trackId) answered") { subscribeState.withLock { $0.answered } > before }
        try await subscribeEndpoint?.waitConnected()
    }

    /// Returns once the media in flight to this client has arrived: no packet came for 200 ms.
    public func waitForMediaToSettle() async throws {
        try await waitUntilSettled("\(uid)'s media to settle") { subscribeEndpoint?.log.withLock { $0.rtp.count } ?? 0 }
    }

    /// The SSRC the server announced for `trackId` in its newest offer.
    public func announcedSSRC(of trackId: String) -> UInt32? {
        guard let offer = latestOffer else { return nil }
        for section in offer.media where section.msid.contains(where: { $0.trackID == trackId }) {
            return section.ssrcList.first
        }
        return nil
    }

    /// Answers every `subscriber_offer` as it arrives (recvonly, DTLS client). An offer with new
    /// ICE credentials is an ICE restart: the answer carries new credentials of ours and the
    /// transport restarts its checks (RFC 8445 §9).
    private func answerOffers() async {
        var handled = 0
        var reader = signal
        while !Task.isCancelled {
            let current = signal
            if current !== reader { reader = current; handled = 0 }  // resumed: a new connection's events
            let offers = reader.events.compactMap { e -> SessionDescriptionMessage? in
                if case .subscriberOffer(let o) = e { return o }
                return nil
            }
            for message in offers.dropFirst(handled) {
                handled += 1
                guard message.revision == offers.last?.revision, let offer = try? SessionDescription(parsing: message.sdp) else { continue }
                let (previous, endpoint) = subscribeState.withLock { ($0.offers.last, $0.endpoint) }
                var restart: (local: ICECredentials, remote: ICECredentials)?
                if let previous, let section = offer.media.first, let old = previous.media.first,
                   let ufrag = offer.iceUfrag(of: section), let pwd = offer.icePwd(of: section), ufrag != previous.iceUfrag(of: old) {
                    restart = (ICECredentials.random(), ICECredentials(ufrag: ufrag, pwd: pwd))
                }
                let ice = subscribeState.withLock { s -> ICECredentials in
                    if let restart { s.ice = restart.local }
                    s.offers.append(offer)
                    return s.ice
                }
                let answer = offer.answer(AnswerOptions(
                    transport: transportParameters(ice, setup: .active), capabilities: .webRTC, iceLite: false,
                    sessionID: "2", acceptDataChannel: dataChannels,
                    direction: { $0.effectiveDirection == .inactive ? .inactive : .recvonly }))
                guard case .success? = try? await reader.request(.subscriberAnswer(SessionDescriptionMessage(sdp: answer.serialize(), revision: message.revision))) else { continue }
                if let restart, let endpoint {
                    let candidates = subscribeRelay.map { [ICECandidate(address: $0.address)] } ?? Self.candidates(of: offer)
                    endpoint.transport.restartICE(local: restart.local, remote: restart.remote, remoteCandidates: candidates)
                }
                if endpoint == nil, let created = try? TransportEndpoint(localICE: ice, certificate: certificate, remote: offer, relay: subscribeRelay,
                                                                         dataChannels: dataChannels ? Self.signalDataChannels : []) {
                    subscribeState.withLock { $0.endpoint = created }
                }
                // Resends on RTX streams are logged as the packets they repair (TransportEndpoint).
                subscribeState.withLock { $0.endpoint }?.setRepairs(offer: offer, answer: answer)
                subscribeState.withLock { $0.answered = message.revision }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The host candidates of an SDP's first media section.
    static func candidates(of description: SessionDescription) -> [ICECandidate] {
        (description.media.first?.candidates ?? []).compactMap { c in SocketAddress(ip: c.address, port: c.port).map { ICECandidate(address: $0) } }
    }

    /// The subscribe transport's negotiated channels (docs/protocol.md, "Data channels").
    public static let signalDataChannels = [
        DataChannelInfo(id: SignalDataChannel.reliableID, label: SignalDataChannel.reliableLabel, negotiated: true),
        DataChannelInfo(id: SignalDataChannel.lossyID, label: SignalDataChannel.lossyLabel, reliability: .lossy, negotiated: true),
    ]

    /// The events that arrived on the reliable data channel, in order.
    public var dataChannelEvents: [ServerEvent] {
        let messages = subscribeEndpoint?.log.withLock { $0.dataChannel } ?? []
        return messages.compactMap { event -> ServerEvent? in
            guard case .message(SignalDataChannel.reliableID, let data, false) = event,
                  case .event(let e)? = try? SignalCodec.decodeServerMessage(String(decoding: data, as: UTF8.self)) else { return nil }
            return e
        }
    }

    public func close() {
        answerTask?.cancel()
        publishEndpoint?.close()
        subscribeEndpoint?.close()
        signal.close()
    }
}
