import Foundation
import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import SRTCProtocol
import Synchronization

/// The subscribe transport of one channel: answers the server's `subscriber_offer`s, binds each
/// sending section to its remote track (by the `a=msid` track id), routes incoming RTP to the
/// track's receiver and sends receiver feedback (RR, NACK, PLI, transport-cc).
final class SubscribeSession: ClientTransportHandler, Sendable {
    // MARK: - Types

    enum Receiver {
        case video(VideoReceiver)
        case audio(AudioReceiver)

        var track: RemoteTrack {
            switch self {
            case .video(let r): r.track
            case .audio(let r): r.track
            }
        }
    }

    /// What applying an offer changed.
    struct OfferResult {
        var answer: String
        /// Tracks that got a receiver.
        var bound: [RemoteTrack]
        /// Tracks whose receiver went away (section inactive or gone).
        var unbound: [RemoteTrack]
        /// What `connect` needs once the server has the answer (it creates its side of the
        /// transport then; checks sent earlier would be dropped and retried only after the RTO).
        var remote: SDPNegotiation.RemoteDescription
        var localICE: ICECredentials
        var revision: Int
    }

    private struct State {
        /// Receivers by mid, and the SSRC → mid routing.
        var receivers: [String: Receiver] = [:]
        var bySSRC: [UInt32: String] = [:]
        var midID: UInt8?
        /// The transport-wide sequence number extension's id, when the server sends it.
        var transportCCID: UInt8?
        var revision = -1
        var onStateChange: (@Sendable (PeerTransport.State) -> Void)?
        var dataChannelOpen = false
    }

    // MARK: - Properties

    let certificate: DTLSCertificate
    let sessionID = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
    /// The SSRC this client's feedback is sent from.
    let feedbackSSRC = UInt32.random(in: 1...UInt32.max)
    private let context: EngineContext
    private let e2ee: E2EEChannelCrypto?
    /// Whether every track is decrypted (a client that encrypts), or only those marked `e2ee`
    /// (a receive-only client such as the trusted recorder).
    private let decryptsEveryTrack: Bool
    private let state = Mutex(State())
    private let transportFeedback = Mutex(TransportFeedbackCollector())
    private let slot = ClientTransportSlot()
    /// The revision of the last offer `connect` followed.
    private let connectedRevision = Mutex(-1)
    /// Receives the events that arrive on the reliable data channel (I/O thread).
    let dataEvents = CallbackSlot<@Sendable (ServerEvent) -> Void>()
    /// Whether the reliable data channel is open.
    var dataChannelOpen: Bool { state.withLock { $0.dataChannelOpen } }
    /// Receives user data packets that arrive on either data channel (I/O thread).
    let dataMessages = CallbackSlot<@Sendable (DataMessage) -> Void>()
    /// Told of an end-to-end encrypted data message that does not decrypt here.
    let undecryptableData = CallbackSlot<@Sendable (DataDecryptionFailure) -> Void>()
    /// Events that arrived on the data channel (for stats and tests).
    var dataEventsReceived: Int { receivedDataEvents.load(ordering: .relaxed) }
    private let receivedDataEvents = Atomic<Int>(0)
    /// Numbers NACKed and resent copies refused as replays (tests and the lab).
    var repairCounts: ReceiveRepairCounts { repair.counts }
    private let repair = ReceiveRepairCounters()

    let relay: MediaRelay

    init(certificate: DTLSCertificate, context: EngineContext, relay: MediaRelay = MediaRelay(policy: .all), e2ee: E2EEChannelCrypto? = nil,
         decryptsEveryTrack: Bool = true) {
        self.e2ee = e2ee
        self.decryptsEveryTrack = decryptsEveryTrack
        self.certificate = certificate
        self.context = context
        self.relay = relay
    }

    /// The negotiated channels of the subscribe transport (docs/protocol.md, "Data channels").
    static let dataChannels = [
        DataChannelInfo(id: SignalDataChannel.reliableID, label: SignalDataChannel.reliableLabel, negotiated: true),
        DataChannelInfo(id: SignalDataChannel.lossyID, label: SignalDataChannel.lossyLabel, reliability: .lossy, negotiated: true),
    ]

    var currentTransport: ClientTransport? { slot.transport }

    /// The codecs of the video streams received now (statistics and tests).
    var videoCodecs: [VideoCodec] {
        state.withLock { s in
            s.receivers.values.compactMap { receiver -> VideoCodec? in
                if case .video(let video) = receiver { return video.codec }
                return nil
            }
        }
    }

    /// Called (on the I/O thread) when the transport's state changes.
    func onStateChange(_ handler: @escaping @Sendable (PeerTransport.State) -> Void) {
        state.withLock { $0.onStateChange = handler }
    }

    var latestRevision: Int { state.withLock { $0.revision } }

    // MARK: - Negotiation

    /// Answers offer `revision`; `track` finds the remote track a section's msid names.
    func apply(offer sdp: String, revision: Int, track: (String) -> RemoteTrack?) throws(SRTCError) -> OfferResult {
        let remote = try SDPNegotiation.describe(sdp)
        state.withLock { $0.revision = max($0.revision, revision) }
        let localICE = slot.localICE
        let answer = try SDPNegotiation.subscribeAnswer(to: sdp, ice: localICE, fingerprint: certificate.fingerprint, sessionID: sessionID,
                                                        dataChannels: context.configuration.useDataChannel,
                                                        redundantAudio: context.configuration.redundantAudio)
        var result = OfferResult(answer: answer, bound: [], unbound: [], remote: remote, localICE: localICE, revision: revision)
        var wanted: [String: (SDPNegotiation.RemoteSection, RemoteTrack)] = [:]
        for section in remote.sections where !section.rejected && section.direction.sends {
            guard let id = section.trackID ?? section.streamID, let remoteTrack = track(id), remoteTrack.kind == section.kind else {
                context.logger.debug("subscriber offer section \(section.mid) names no known track (\(section.trackID ?? "-"))")
                continue
            }
            wanted[section.mid] = (section, remoteTrack)
        }
        state.withLock { s in
            for (mid, receiver) in s.receivers {
                let keep = wanted[mid].map { $0.1 === receiver.track } ?? false
                if !keep {
                    s.receivers[mid] = nil
                    result.unbound.append(receiver.track)
                }
            }
            s.bySSRC = [:]
            s.midID = remote.sections.compactMap(\.midID).first
            s.transportCCID = remote.sections.compactMap(\.transportCCID).first
            for (mid, (section, remoteTrack)) in wanted {
                let ssrc = section.ssrcs.first ?? 0
                if s.receivers[mid] == nil {
                    // A client that encrypts decrypts every track, so the server cannot slip it
                    // plaintext; a receive-only one (the trusted recorder) only the marked ones.
                    let e2ee = decryptsEveryTrack || remoteTrack.info?.e2ee == true ? self.e2ee : nil
                    switch remoteTrack {
                    case let video as RemoteVideoTrack:
                        s.receivers[mid] = .video(VideoReceiver(mid: mid, ssrc: ssrc, track: video, codec: section.videoCodec ?? .vp8,
                                                                e2ee: e2ee, logger: context.logger))
                    case let audio as RemoteAudioTrack:
                        s.receivers[mid] = .audio(AudioReceiver(mid: mid, ssrc: ssrc, audioLevelID: section.audioLevelID,
                                                                track: audio, context: context, e2ee: e2ee,
                                                                nacks: section.nack && context.configuration.audioNACK,
                                                                redPayloadType: context.configuration.redundantAudio ? section.redPayloadType : nil))
                    default:
                        continue
                    }
                    result.bound.append(remoteTrack)
                    if let receiver = s.receivers[mid] {
                        switch receiver {
                        case .video(let r): remoteTrack.statisticsSource.set { r.statistics }
                        case .audio(let r):
                            remoteTrack.statisticsSource.set { r.statistics }
                            (remoteTrack as? RemoteAudioTrack)?.playoutSource.set { r.playout }
                        }
                    }
                }
                for ssrc in section.ssrcs { s.bySSRC[ssrc] = mid }
            }
        }
        return result
    }

    /// Starts (or ICE-restarts) the transport for an applied offer; call it once the server
    /// has acknowledged the answer. Returns what was done, or nil when nothing was: the offer had
    /// no section to receive, or a later offer's transport was already connected (the connects of
    /// offers answered one after another run in tasks of their own and may come out of order;
    /// the older one would ICE-restart the transport back to credentials already replaced).
    @discardableResult
    func connect(for result: OfferResult) throws(SRTCError) -> ClientTransportSlot.Outcome? {
        try connectedRevision.withLock { last throws(SRTCError) -> ClientTransportSlot.Outcome? in
            guard result.revision >= last else { return nil }
            last = result.revision
            return try connectIfNeeded(result.remote, localICE: result.localICE)
        }
    }

    /// Fresh local ICE credentials, used from the next offer on (ICE restart); returns the old ones.
    @discardableResult
    func restartICE() -> ICECredentials { slot.restartICE() }

    func restoreICE(_ credentials: ICECredentials) { slot.restoreICE(credentials) }

    private func connectIfNeeded(_ remote: SDPNegotiation.RemoteDescription, localICE: ICECredentials) throws(SRTCError) -> ClientTransportSlot.Outcome? {
        // An offer with every section rejected (nothing subscribed) leaves the transport as it is.
        guard remote.sections.contains(where: { !$0.rejected }) else { return nil }
        return try slot.follow(remote, localICE: localICE) { () throws(SRTCError) in
            // A new transport's data channel opens anew.
            state.withLock { $0.dataChannelOpen = false }
            return try ClientTransport(localICE: localICE, remote: remote, certificate: certificate,
                                       bindAddress: context.configuration.mediaBindAddress, relay: relay, handler: self,
                                       dataChannels: context.configuration.useDataChannel ? Self.dataChannels : [])
        }
    }

    /// Sends one binary message on data channel `channel` of the current transport, after the
    /// messages sent before it; dropped when the transport or channel is gone.
    func sendData(_ packet: [UInt8], on channel: UInt16) {
        slot.transport?.execute { peer in
            packet.withUnsafeBytes { raw in _ = try? peer.sendData(raw, on: channel, binary: true) }
        }
    }

    /// Sends a receiver report covering every stream (every second).
    func sendReports() {
        let receivers = state.withLock { Array($0.receivers.values) }
        guard let transport = slot.transport, transport.state == .connected else { return }
        let now = RTPStreamSender.wallClock()
        let blocks = receivers.compactMap { receiver -> ReceptionReport? in
            switch receiver {
            case .video(let r): r.receptionReport(now: now)
            case .audio(let r): r.receptionReport(now: now)
            }
        }
        // At most 31 blocks per report (RFC 3550 §6.4.2).
        let reports = stride(from: 0, to: max(1, blocks.count), by: 31).map { start in
            RTCPPacket.receiverReport(ReceiverReport(ssrc: feedbackSSRC, reports: Array(blocks[start..<min(blocks.count, start + 31)])))
        }
        transport.sendRTCP(reports)
    }

    var receiverCount: Int { state.withLock { $0.receivers.count } }

    func close() {
        state.withLock { s in
            s.receivers = [:]
            s.bySSRC = [:]
            s.dataChannelOpen = false
        }
        slot.close()
    }

    // MARK: - ClientTransportHandler (I/O thread)

    func transport(_ transport: ClientTransport, didChangeState state: PeerTransport.State) {
        context.logger.debug("subscribe transport \(state)")
        self.state.withLock { $0.onStateChange }?(state)
    }

    /// A resent copy of a packet that had arrived (SRTP refused it as a replay) still arrived: its
    /// transport-wide number is recorded, else the server reads it as lost. The server resends a
    /// packet the SDK asked for at once on a gap that was only reordering (the lab relay's 5 ms
    /// of jitter): about as many copies as real losses, whose numbers made the server's 500 ms
    /// loss windows reach 30 % (`severeLoss`) against the relay's 10 % and cut its estimate.
    func transport(_ transport: ClientTransport, didReceiveReplayedRTP packet: UnsafeRawBufferPointer, on peer: PeerTransport) {
        guard let view = try? RTPPacketView(packet) else { return }
        let nowUs = Int64(DispatchTime.now().uptimeNanoseconds / 1_000)
        let (id, receiver) = state.withLock { s in (s.transportCCID, s.bySSRC[view.ssrc].flatMap { s.receivers[$0] }) }
        switch receiver {
        case .video?: repair.replayed(video: true)
        case .audio?: repair.replayed(video: false)
        case nil: break
        }
        guard let due = recordTransportCC(view, id: id, nowUs: nowUs) else { return }
        let bytes = RTCPCompound.serialize([.transportCC(due)])
        bytes.withUnsafeBytes { _ = peer.sendRTCP($0) }
    }

    /// Records the packet's transport-wide arrival (its extension `id`); the feedback due now, if any.
    private func recordTransportCC(_ view: RTPPacketView, id: UInt8?, nowUs: Int64) -> TransportLayerCC? {
        guard let id, let value = view.extensionValue(id: id), value.count == 2 else { return nil }
        return transportFeedback.withLock { collector -> TransportLayerCC? in
            collector.record(sequenceNumber: UInt16(value[0]) << 8 | UInt16(value[1]), arrival: nowUs)
            return collector.feedback(senderSSRC: feedbackSSRC, mediaSSRC: view.ssrc, now: nowUs)
        }
    }

    func transport(_ transport: ClientTransport, didReceiveRTP packet: UnsafeRawBufferPointer, on peer: PeerTransport) {
        guard let view = try? RTPPacketView(packet) else { return }
        let nowUs = Int64(DispatchTime.now().uptimeNanoseconds / 1_000)
        let (receiver, transportCCID) = state.withLock { s -> (Receiver?, UInt8?) in
            if let mid = s.bySSRC[view.ssrc] { return (s.receivers[mid], s.transportCCID) }
            // An SSRC the offer did not list: learn it from the mid extension (RFC 8843 §9.2).
            guard let id = s.midID, let raw = view.extensionValue(id: id),
                  let mid = try? StreamIdentifierExtension(parsing: raw).value, let receiver = s.receivers[mid] else { return (nil, s.transportCCID) }
            s.bySSRC[view.ssrc] = mid
            return (receiver, s.transportCCID)
        }
        var rtcp: [RTCPPacket] = []
        if let due = recordTransportCC(view, id: transportCCID, nowUs: nowUs) { rtcp.append(.transportCC(due)) }
        defer {
            if !rtcp.isEmpty {
                let bytes = RTCPCompound.serialize(rtcp)
                bytes.withUnsafeBytes { _ = peer.sendRTCP($0) }
            }
        }
        switch receiver {
        case .video(let r)?:
            let feedback = r.receive(view, nowUs: nowUs)
            if !feedback.nack.isEmpty {
                repair.nacked(feedback.nack.count, video: true)
                rtcp.append(.nack(TransportLayerNack(senderSSRC: feedbackSSRC, mediaSSRC: view.ssrc, lost: feedback.nack)))
            }
            if feedback.pli { rtcp.append(.pictureLossIndication(PictureLossIndication(senderSSRC: feedbackSSRC, mediaSSRC: view.ssrc))) }
        case .audio(let r)?:
            let lost = r.receive(view, nowUs: nowUs)
            if !lost.isEmpty {
                repair.nacked(lost.count, video: false)
                rtcp.append(.nack(TransportLayerNack(senderSSRC: feedbackSSRC, mediaSSRC: view.ssrc, lost: lost)))
            }
        case nil:
            return
        }
    }

    func transport(_ transport: ClientTransport, didReceiveRTCP packet: UnsafeRawBufferPointer, on peer: PeerTransport) {
        guard let packets = try? RTCPCompound.parse(packet) else { return }
        let now = RTPStreamSender.wallClock()
        for case .senderReport(let sr) in packets {
            let receiver = state.withLock { s in s.bySSRC[sr.ssrc].flatMap { s.receivers[$0] } }
            switch receiver {
            case .video(let r)?: r.senderReportArrived(sr.ntpTime, at: now)
            case .audio(let r)?: r.senderReportArrived(sr.ntpTime, at: now)
            case nil: continue
            }
        }
    }

    func transport(_ transport: ClientTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {
        guard slot.transport === transport else { return }
        switch event {
        case .opened(let info) where info.id == SignalDataChannel.reliableID:
            state.withLock { $0.dataChannelOpen = true }
        case .closed(SignalDataChannel.reliableID), .shutDown:
            state.withLock { $0.dataChannelOpen = false }
        case .message(let channel, let data, binary: true) where channel == SignalDataChannel.reliableID || channel == SignalDataChannel.lossyID:
            guard let packet = try? data.withUnsafeBytes({ raw throws(DataPacketError) in try DataPacket.Delivery(parsing: raw) }) else {
                context.logger.debug("dropped a malformed data packet")
                return
            }
            deliver(packet, reliable: channel == SignalDataChannel.reliableID)
        case .message(SignalDataChannel.reliableID, let data, binary: false):
            // Signaling events, as on the WebSocket; only those the data channel carries count.
            guard let text = String(validating: data, as: UTF8.self),
                  case .event(let event)? = try? SignalCodec.decodeServerMessage(text), event.travelsOnDataChannel else {
                context.logger.debug("dropped a data channel message that is no event it carries")
                return
            }
            receivedDataEvents.add(1, ordering: .relaxed)
            dataEvents.function?(event)
        default:
            break
        }
    }

    /// Hands a data packet to the channel: plain as it came, encrypted (docs/e2ee.md, "Data
    /// messages") decrypted, or as a failure when it does not decrypt: never its ciphertext.
    private func deliver(_ packet: DataPacket.Delivery, reliable: Bool) {
        guard let from = packet.from, packet.payload.withUnsafeBytes({ E2EEData.isEncrypted($0) }) else {
            dataMessages.function?(DataMessage(from: packet.from, topic: packet.topic, data: Data(packet.payload), reliable: reliable))
            return
        }
        let result = e2ee?.decryptData(packet.payload, topic: Array((packet.topic ?? "").utf8), from: from)
            ?? .failure(E2EEDataFailure(state: .missingKey))
        switch result {
        case .success(let payload):
            dataMessages.function?(DataMessage(from: from, topic: packet.topic, data: Data(payload), reliable: reliable, encrypted: true))
        case .failure(let failure):
            undecryptableData.function?(DataDecryptionFailure(from: from, topic: packet.topic, reliable: reliable, reason: failure.state))
        }
    }
}
