import Foundation
import RTCCrypto
import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import Synchronization

/// The publish transport of one channel: the client offers one `sendonly` section per local
/// track, the server answers; RTP goes out through per-stream senders, RTCP feedback comes back
/// (NACK → retransmit from the cache, PLI/FIR → key frame).
final class PublishSession: ClientTransportHandler, PacketRoute, Sendable {
    // MARK: - Types

    struct Publication {
        var section: SDPNegotiation.PublishSection
        let track: LocalTrack
        let senders: [RTPStreamSender]
        let videoSink: VideoPublicationSink?
        let audioSink: AudioPublicationSink?
        var attached = false
    }

    private struct State {
        var sections: [SDPNegotiation.PublishSection] = []
        var publications: [String: Publication] = [:]
        var nextMid = 0
        var version: UInt64 = 1
        var onStateChange: (@Sendable (PeerTransport.State) -> Void)?
    }

    // MARK: - Properties

    let certificate: DTLSCertificate
    let sessionID = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
    let cname = SecureRandom.string(count: 16)
    private let bindAddress: String
    private let relay: MediaRelay
    /// Offered first for video (both are offered; the server keeps the first it forwards).
    private let videoCodec: VideoCodec
    /// A two-layer camera in `videoCodec` is one scalable stream (VP9 or AV1 with `.svc`), not
    /// simulcast (`SRTCEngine.Configuration.videoScalability`).
    private let sendsSVC: Bool
    private let logger: Logger
    private let e2ee: E2EEChannelCrypto?
    /// Offer RED (RFC 2198) around Opus (`SRTCEngine.Configuration.redundantAudio`).
    private let redundantAudio: Bool
    /// Offer `usedtx=1` (`SRTCEngine.Configuration.opusDTX`); the encoder uses DTX where answered.
    private let opusDTX: Bool
    /// Offer `useinbandfec=1` (`SRTCEngine.Configuration.opusInbandFEC`); the encoder embeds FEC where answered.
    private let opusInbandFEC: Bool
    private let state = Mutex(State())
    private let slot = ClientTransportSlot()

    init(certificate: DTLSCertificate, bindAddress: String, relay: MediaRelay = MediaRelay(policy: .all),
         videoCodec: VideoCodec = .vp8, videoScalability: VideoScalability = .svc, redundantAudio: Bool = true, opusDTX: Bool = false, opusInbandFEC: Bool = true,
         e2ee: E2EEChannelCrypto? = nil, logger: Logger) {
        self.redundantAudio = redundantAudio
        self.opusDTX = opusDTX
        self.opusInbandFEC = opusInbandFEC
        self.e2ee = e2ee
        self.certificate = certificate
        self.bindAddress = bindAddress
        self.relay = relay
        self.videoCodec = videoCodec
        sendsSVC = videoCodec.isScalableHere && videoScalability == .svc
        self.logger = logger
    }

    var currentTransport: ClientTransport? { slot.transport }

    /// Called (on the I/O thread) when the transport's state changes.
    func onStateChange(_ handler: @escaping @Sendable (PeerTransport.State) -> Void) {
        state.withLock { $0.onStateChange = handler }
    }

    // MARK: - Sections

    /// Adds a section for `track` (not negotiated until the next offer is answered).
    func add(_ track: LocalTrack) -> SDPNegotiation.PublishSection {
        state.withLock { s in
            let mid = String(s.nextMid)
            s.nextMid += 1
            // A two-layer AV1 or VP9 track is, unless `videoScalability` asks for simulcast, one
            // stream with two spatial layers (L2T3_KEY, docs/sdk-srtc.md): one sender without rids, the layers told apart by its Dependency
            // Descriptors (AV1) or VP9 payload descriptors. Under E2EE too: each spatial layer's
            // frame is encrypted apart, as browsers' encoded transforms hand them out (docs/e2ee.md,
            // "AV1 with spatial layers", "VP9"), and what the SFU reads stays clear: the Dependency
            // Descriptor is a header extension, the VP9 payload descriptor is outside the ciphertext.
            let twoLayers = (track as? LocalVideoTrack)?.simulcast == true
            let scalable = twoLayers && sendsSVC
            let layers: [String] = twoLayers && !scalable ? [VideoLayer.cameraBig.rid, VideoLayer.cameraSmall.rid] : []
            let ssrcs = (0..<max(1, layers.count)).map { _ in UInt32.random(in: 1...UInt32.max) }
            var section = SDPNegotiation.PublishSection(mid: mid, kind: track.kind, streamLabel: cname,
                                                        trackLabel: UUIDString.make(), ssrcs: ssrcs, rids: layers)
            section.onlyCodec = (track as? LocalEncodedVideoTrack)?.codec
            section.h264ProfileLevelID = (track as? LocalEncodedVideoTrack)?.profileLevelID
            let senders = ssrcs.enumerated().map { index, ssrc in
                RTPStreamSender(kind: track.kind, parameters: .init(
                    ssrc: ssrc, payloadType: track.kind == .audio ? SDPNegotiation.opusPayloadType : SDPNegotiation.vp8PayloadType,
                    clockRate: track.kind == .audio ? 48_000 : 90_000, mid: mid, rid: layers.isEmpty ? nil : layers[index],
                    midID: 4, ridID: track.kind == .video && !layers.isEmpty ? 10 : nil, audioLevelID: track.kind == .audio ? 1 : nil))
            }
            let video = track.kind == .video ? VideoPublicationSink(senders: senders, route: self, e2ee: e2ee, spatialLayers: scalable ? 2 : 1) : nil
            let audio = track.kind == .audio ? senders.first.map { AudioPublicationSink(sender: $0, route: self, e2ee: e2ee) } : nil
            s.sections.append(section)
            s.publications[mid] = Publication(section: section, track: track, senders: senders, videoSink: video, audioSink: audio)
            return section
        }
    }

    /// Marks a section inactive and stops feeding it.
    func remove(mid: String) {
        let publication = state.withLock { s -> Publication? in
            if let index = s.sections.firstIndex(where: { $0.mid == mid }) { s.sections[index].active = false }
            return s.publications.removeValue(forKey: mid)
        }
        if let publication { detach(publication) }
    }

    /// Forgets a section that was added but whose offer failed.
    func discard(mid: String) {
        remove(mid: mid)
        state.withLock { s in s.sections.removeAll { $0.mid == mid } }
    }

    /// The layers `track` is announced with (`PublishTrack.layers`): its simulcast layers, or for
    /// a two-layer AV1 or VP9 track, sent as one L2T3_KEY stream, the same names with the lower
    /// spatial layer's size (half the width and height) and the whole stream's bitrate.
    func announcedLayers(of track: LocalTrack) -> [SimulcastLayer] {
        guard let video = track as? LocalVideoTrack else { return [] }
        var layers = video.layers
        guard layers.count == 2, sendsSVC else { return layers }
        layers[1].width = max(2, (video.preset.width / 2) & ~1)
        layers[1].height = max(2, (video.preset.height / 2) & ~1)
        layers[1].maxBitrate = nil
        return layers
    }

    /// The RTP senders of a section, best layer first.
    func senders(mid: String) -> [RTPStreamSender] {
        state.withLock { $0.publications[mid]?.senders ?? [] }
    }

    /// The video codec the answer negotiated for section `mid` (nil before an answer, or for audio).
    func videoCodec(mid: String) -> VideoCodec? {
        state.withLock { s in s.publications[mid]?.senders.first.map { $0.parameters.videoCodec } }
    }

    /// The mid carrying `track`, if it is published in this session.
    func mid(of track: LocalTrack) -> String? {
        state.withLock { s in s.publications.values.first { $0.track === track }?.section.mid }
    }

    /// Dynacast (`layers_needed`, docs/protocol.md): the layers of track `trackId` someone
    /// receives, by description; the others stop being encoded for this session. Layers are
    /// named in the order of the track's `layers` (the senders' order).
    /// `track` is the channel's own: one track published in several channels has a different id
    /// in each (`LocalTrack.trackId(in:)`), and its `info` holds only the last channel's.
    func setNeededLayers(of track: LocalTrack, layers: [String]) {
        let found = state.withLock { s in s.publications.values.first { $0.track === track } }
        guard let found, let sink = found.videoSink else { return }
        let announced = (track as? LocalVideoTrack)?.layers.map(\.desc) ?? []
        let names = announced.isEmpty ? [track.desc] : announced
        sink.setNeededLayers(Set(layers.compactMap { names.firstIndex(of: $0) }))
    }

    /// Starts feeding a negotiated section from its track's encoder.
    func attach(mid: String) {
        let publication = state.withLock { s -> Publication? in
            guard var p = s.publications[mid], !p.attached else { return nil }
            p.attached = true
            s.publications[mid] = p
            return p
        }
        guard let publication else { return }
        if let video = publication.track as? LocalVideoTrack, let sink = publication.videoSink { video.sendPipeline.attach(sink) }
        if let audio = publication.track as? LocalAudioTrack, let sink = publication.audioSink { audio.sendPipeline.attach(sink) }
    }

    private func detach(_ publication: Publication) {
        if let video = publication.track as? LocalVideoTrack, let sink = publication.videoSink { video.sendPipeline.detach(sink) }
        if let audio = publication.track as? LocalAudioTrack, let sink = publication.audioSink { audio.sendPipeline.detach(sink) }
    }

    // MARK: - Negotiation

    /// The current offer (a new session version each time).
    func makeOffer() -> String {
        let ice = slot.localICE
        return state.withLock { s in
            s.version += 1
            return SDPNegotiation.publishOffer(sections: s.sections, ice: ice, fingerprint: certificate.fingerprint,
                                               sessionID: sessionID, version: s.version, cname: cname, videoCodec: videoCodec,
                                               redundantAudio: redundantAudio, opusDTX: opusDTX, opusInbandFEC: opusInbandFEC)
        }
    }

    /// New ICE credentials for the next offer (ICE restart, RFC 8445 §9); returns the old ones,
    /// to put back with `restoreICE` when the server refuses the restart.
    @discardableResult
    func restartICE() -> ICECredentials { slot.restartICE() }

    func restoreICE(_ credentials: ICECredentials) { slot.restoreICE(credentials) }

    /// Applies the server's answer: negotiated payload types and extension ids, and a transport
    /// for the answer's ICE credentials (kept when they did not change).
    func applyAnswer(_ sdp: String) throws(SRTCError) {
        let remote = try SDPNegotiation.describe(sdp)
        let (senders, audio) = state.withLock { s -> ([(RTPStreamSender, SDPNegotiation.RemoteSection)],
                                                       [(AudioSendPipeline, dtx: Bool, fec: Bool)]) in
            var pairs: [(RTPStreamSender, SDPNegotiation.RemoteSection)] = []
            var audio: [(AudioSendPipeline, dtx: Bool, fec: Bool)] = []
            for publication in s.publications.values {
                guard let answered = remote.section(mid: publication.section.mid) else { continue }
                for sender in publication.senders { pairs.append((sender, answered)) }
                // The encoder follows the answer's codec (set before the sink is attached).
                if let codec = answered.videoCodec { publication.videoSink?.videoCodec = codec }
                // DTX and in-band FEC where both sides asked for them (RFC 7587 §6.1: `usedtx` and
                // `useinbandfec` are the receiver's wish; the answer keeps what was offered).
                if let track = publication.track as? LocalAudioTrack {
                    audio.append((track.sendPipeline, opusDTX && answered.usesDTX, opusInbandFEC && answered.usesInbandFEC))
                }
            }
            return (pairs, audio)
        }
        // Outside the lock: the pipeline's lock is held while it hands packets to the senders.
        for (pipeline, dtx, fec) in audio {
            pipeline.setDTX(dtx)
            pipeline.setInbandFEC(fec)
        }
        for (sender, answered) in senders {
            var p = sender.parameters
            if let pt = answered.payloadType { p.payloadType = pt }
            if let codec = answered.videoCodec { p.videoCodec = codec }
            p.midID = answered.midID
            p.ridID = p.rid == nil ? nil : answered.ridID
            p.audioLevelID = answered.audioLevelID
            p.redPayloadType = redundantAudio ? answered.redPayloadType : nil
            p.dependencyDescriptorID = answered.dependencyDescriptorID
            sender.update(p)
        }
        let localICE = slot.localICE
        let outcome = try slot.follow(remote, localICE: localICE) { () throws(SRTCError) in
            try ClientTransport(localICE: localICE, remote: remote, certificate: certificate, bindAddress: bindAddress, relay: relay,
                                handler: self)
        }
        if outcome != .kept { logger.debug("publish transport (\(outcome)) toward \(remote.candidates.map(\.address))") }
    }

    /// Sends a sender report for every stream (every second, from the channel's media timer).
    func sendReports() {
        let senders = state.withLock { s in s.publications.values.flatMap(\.senders) }
        guard let transport = slot.transport, transport.state == .connected else { return }
        let reports = senders.compactMap { $0.senderReport() }.map { RTCPPacket.senderReport($0) }
        transport.sendRTCP(reports)
    }

    var transportState: PeerTransport.State? { currentTransport?.state }

    /// The credentials of the next description (those of the transport once answered).
    var localICE: ICECredentials { slot.localICE }

    /// The transport's host candidate (RFC 8445 §5.1.1.1): the address its socket sends from
    /// toward the server, with its port; nil before an answer made the transport. A socket bound
    /// to the wildcard address has the route's source address (`RouteLookup`).
    var hostCandidateAddress: SocketAddress? {
        guard let transport = slot.transport else { return nil }
        let local = transport.localAddress
        guard local.high == 0, local.low == 0 else { return local }
        guard let server = transport.remote.candidates.first(where: { !$0.isTCP && $0.component == 1 && $0.address.family == local.family })?.address,
              let source = RouteLookup.sourceAddress(toward: server) else { return nil }
        return source.with(port: local.port)
    }

    /// Packets sent per stream SSRC (statistics).
    var sentPackets: [UInt32: Int] {
        state.withLock { s in
            Dictionary(s.publications.values.flatMap(\.senders).map { ($0.ssrc, $0.packetsSent) }, uniquingKeysWith: +)
        }
    }

    func close() {
        let publications = state.withLock { s -> [Publication] in
            defer { s.publications = [:] }
            return Array(s.publications.values)
        }
        for publication in publications { detach(publication) }
        slot.close()
    }

    // MARK: - ClientTransportHandler (I/O thread)

    func transport(_ transport: ClientTransport, didChangeState state: PeerTransport.State) {
        logger.debug("publish transport \(state)")
        if state == .connected {
            // A fresh path: every track starts with a key frame.
            for publication in self.state.withLock({ Array($0.publications.values) }) {
                (publication.track as? LocalVideoTrack)?.sendPipeline.requestKeyFrame(layer: nil)
            }
        }
        self.state.withLock { $0.onStateChange }?(state)
    }

    func transport(_ transport: ClientTransport, didReceiveRTP packet: UnsafeRawBufferPointer, on peer: PeerTransport) {}

    func transport(_ transport: ClientTransport, didReceiveRTCP packet: UnsafeRawBufferPointer, on peer: PeerTransport) {
        for (sender, sequences) in handleFeedback(packet) { sender.retransmit(sequences, on: peer) }
    }

    /// Acts on RTCP feedback from the server: PLI and FIR ask the track's encoder for a key frame;
    /// a report block on an audio stream sets the loss its encoder plans FEC for; returns the
    /// NACKed packets to resend per stream. Malformed datagrams are ignored.
    func handleFeedback(_ packet: UnsafeRawBufferPointer) -> [(RTPStreamSender, [UInt16])] {
        guard let packets = try? RTCPCompound.parse(packet) else { return [] }
        var resend: [(RTPStreamSender, [UInt16])] = []
        for rtcp in packets {
            switch rtcp {
            case .receiverReport(let report):
                for block in report.reports { receivedReportBlock(block) }
            case .senderReport(let report):
                for block in report.reports { receivedReportBlock(block) }
            case .nack(let nack):
                if let found = sender(ssrc: nack.mediaSSRC) { resend.append((found.sender, nack.lostSequenceNumbers)) }
            case .pictureLossIndication(let pli):
                requestKeyFrame(ssrc: pli.mediaSSRC)
            case .fullIntraRequest(let fir):
                for entry in fir.entries { requestKeyFrame(ssrc: entry.ssrc) }
            default:
                continue
            }
        }
        return resend
    }

    private func sender(ssrc: UInt32) -> (sender: RTPStreamSender, track: LocalTrack, layer: Int)? {
        state.withLock { s in
            for publication in s.publications.values {
                if let index = publication.senders.firstIndex(where: { $0.ssrc == ssrc }) {
                    return (publication.senders[index], publication.track, index)
                }
            }
            return nil
        }
    }

    /// A report block about one of our streams (RFC 3550 §6.4.1): for audio, its fraction lost
    /// goes to the track's encoder (`AudioSendPipeline.receivedReport`). The server's reports carry
    /// its subscribers' worst loss there (docs/network.md).
    private func receivedReportBlock(_ block: ReceptionReport) {
        let found = state.withLock { s -> (AudioSendPipeline, AudioPublicationSink)? in
            for publication in s.publications.values {
                guard let sink = publication.audioSink, sink.sender.ssrc == block.ssrc,
                      let track = publication.track as? LocalAudioTrack else { continue }
                return (track.sendPipeline, sink)
            }
            return nil
        }
        guard let found else { return }
        found.0.receivedReport(fractionLost: block.fractionLost, from: found.1)
    }

    private func requestKeyFrame(ssrc: UInt32) {
        guard let found = sender(ssrc: ssrc), let video = found.track as? LocalVideoTrack else { return }
        video.sendPipeline.requestKeyFrame(layer: found.layer)
    }
}

/// Random identifiers for SDP labels.
enum UUIDString {
    static func make() -> String { UUID().uuidString.lowercased() }
}

extension VideoCodec {
    /// The SDK can send a two-layer track of this codec as one stream of two spatial layers
    /// (`L2T3_KEY`) rather than as simulcast (`VideoScalability.svc`, the default).
    var isScalableHere: Bool { self == .av1 || self == .vp9 }
}
