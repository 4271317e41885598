import Foundation
import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import SRTC
import SRTCProtocol
import Synchronization

/// A load participant's publish transport: one client `PeerTransport` (its own socket and I/O
/// thread, as the SDK's) sending a camera (one stream or two simulcast layers) and a microphone
/// from the shared `LoadMedia`, answering NACKs and key-frame requests, and sending sender reports.
/// `LoadPacer` calls `sendDue` and `sendReports`; everything runs on the transport's I/O thread.
// @unchecked Sendable: `streams` and `transport` are set by connect() before the pacer gets the publisher, then used only on the transport's I/O thread; the flags are Atomic.
package final class LoadPublisher: PeerTransportDelegate, @unchecked Sendable {
    /// The publish offer's sections: audio (mid 0) and video (mid 1).
    package struct Offer: Sendable {
        package var sdp: String
        package var sections: [SDPNegotiation.PublishSection]
        package var tracks: [PublishTrack]
        let localICE: ICECredentials
    }

    /// The extension id this client offers abs-capture-time with.
    static let absCaptureTimeID: UInt8 = 8

    private(set) var streams: [LoadStreamSender] = []
    private var transport: PeerTransport?
    /// Monotonic µs when the transport connected (media starts then); 0 before.
    private let started = Atomic<Int64>(0)
    /// When media started (monotonic µs), readable from any thread.
    var startTime: Int64? {
        let value = started.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
    let connected = Atomic<Bool>(false)
    let failed = Atomic<Bool>(false)

    // MARK: - Negotiation

    /// The offer for a camera (simulcast `h`/`l` when `simulcast`) and a microphone. With
    /// `scalable` (`.av1` or `.vp9`) the camera is one stream of two spatial layers (L2T3_KEY)
    /// in that codec, named as the simulcast layers are (AV1 with the Dependency Descriptor offered).
    package static func makeOffer(certificate: DTLSCertificate, simulcast: Bool, audio: Bool = true, video: Bool = true,
                                  scalable: VideoCodec? = nil) -> Offer {
        let isScalable = scalable != nil
        let cname = "load-" + String(UInt32.random(in: 1 ... .max), radix: 36)
        var sections: [SDPNegotiation.PublishSection] = []
        var tracks: [PublishTrack] = []
        if audio {
            sections.append(.init(mid: "0", kind: .audio, streamLabel: cname, trackLabel: "mic-" + cname,
                                  ssrcs: [UInt32.random(in: 1 ... .max)], rids: []))
            tracks.append(PublishTrack(mid: "0", kind: .audio, desc: TrackDescName.mic, muted: false, layers: []))
        }
        if video {
            let rids = simulcast && !isScalable ? ["h", "l"] : []
            sections.append(.init(mid: "1", kind: .video, streamLabel: cname, trackLabel: "cam-" + cname,
                                  ssrcs: (0..<max(1, rids.count)).map { _ in UInt32.random(in: 1 ... .max) }, rids: rids))
            let small = isScalable ? (width: LoadMedia.bigSize.width / 2, height: LoadMedia.bigSize.height / 2) : LoadMedia.smallSize
            let layers = simulcast || isScalable ? [
                SimulcastLayer(rid: "h", desc: TrackDescName.cameraBig, width: LoadMedia.bigSize.width, height: LoadMedia.bigSize.height),
                SimulcastLayer(rid: "l", desc: TrackDescName.cameraSmall, width: small.width, height: small.height),
            ] : []
            tracks.append(PublishTrack(mid: "1", kind: .video, desc: TrackDescName.cameraBig, muted: false, layers: layers))
        }
        let ice = ICECredentials.random()
        let sdp = SDPNegotiation.publishOffer(
            sections: sections, ice: ice, fingerprint: certificate.fingerprint,
            sessionID: String(UInt64.random(in: 1_000_000_000 ... 9_999_999_999)), version: 1, cname: cname,
            extraExtensions: [ExtMap(id: UInt16(absCaptureTimeID), uri: RTPHeaderExtensionURI.absCaptureTime)],
            videoCodec: scalable ?? .vp8, redundantAudio: false)  // it sends its encoded loop as plain Opus
        return Offer(sdp: sdp, sections: sections, tracks: tracks, localICE: ice)
    }

    /// Applies the answer: one sender per stream, then connects to the server it names.
    /// - Parameters:
    ///   - bindAddress: the local address of the media socket.
    ///   - sharedLoops: serve the transport on these threads (`PeerTransportParameters.sharedLoops`).
    package func connect(offer: Offer, answer: String, media: LoadMedia, certificate: DTLSCertificate,
                         bindAddress: String, sharedLoops: SharedUDPLoops? = nil) throws {
        let remote = try SDPNegotiation.describe(answer)
        let parsed = try SessionDescription(parsing: answer)
        var senders: [LoadStreamSender] = []
        for section in offer.sections {
            guard let accepted = remote.section(mid: section.mid), !accepted.rejected,
                  let m = parsed.media.first(where: { $0.mid == section.mid }) else { continue }
            func id(_ uri: String) -> UInt8? { m.extensionID(uri: uri).flatMap { (1...14).contains($0) ? UInt8($0) : nil } }
            let stamp: SendTimeStamp = id(RTPHeaderExtensionURI.absCaptureTime).map { .absCaptureTime(id: $0) } ?? .padding
            let payloadType = accepted.payloadType
                ?? (section.kind == .audio ? SDPNegotiation.opusPayloadType : SDPNegotiation.vp8PayloadType)
            for (index, ssrc) in section.ssrcs.enumerated() {
                var elements: [RTPHeaderWriter.Element] = []
                if let mid = id(RTPHeaderExtensionURI.mid), let e = RTPHeaderWriter.Element(id: mid, bytes: Array(section.mid.utf8)) {
                    elements.append(e)
                }
                if index < section.rids.count, let rid = id(RTPHeaderExtensionURI.rid),
                   let e = RTPHeaderWriter.Element(id: rid, bytes: Array(section.rids[index].utf8)) {
                    elements.append(e)
                }
                // RFC 6464: voice active at -30 dBov, so the server sees a speaker.
                if section.kind == .audio, let level = id(RTPHeaderExtensionURI.audioLevel),
                   let e = RTPHeaderWriter.Element(id: level, bytes: [0x80 | 30]) {
                    elements.append(e)
                }
                let codec: VideoCodec? = accepted.videoCodec
                let scalable = codec == .av1 || codec == .vp9 ? codec : nil
                let loop = section.kind == .audio ? media.audio : try scalable.map { try media.scalable($0) } ?? (index == 0 ? media.big : media.small)
                senders.append(LoadStreamSender(loop: loop, ssrc: ssrc, payloadType: payloadType, headerElements: elements, stamp: stamp,
                                                descriptorID: id(RTPHeaderExtensionURI.dependencyDescriptor)))
            }
        }
        streams = senders
        var parameters = PeerTransportParameters(
            iceRole: .controlling, localICE: offer.localICE, remoteICE: ICECredentials(ufrag: remote.iceUfrag, pwd: remote.icePwd),
            remoteCandidates: try LocalOnly.filter(remote.candidates), certificate: certificate, remoteFingerprint: remote.fingerprint,
            dtlsRole: SDPNegotiation.localDTLSRole(remoteSetup: remote.setup), connectTimeout: .seconds(20))
        parameters.sharedLoops = sharedLoops
        guard let bind = SocketAddress(ip: bindAddress, port: 0) else { throw LoadError.setup("bad bind address \(bindAddress)") }
        transport = try PeerTransport.client(parameters, bind: bind, delegate: self)
    }

    /// The stream subscribers of `kind` receive: audio, or the big (or only) or small video layer.
    func stream(kind: TrackKind, small: Bool) -> LoadStreamSender? {
        let matching = streams.filter { ($0.loop.isVideo ? TrackKind.video : .audio) == kind }
        return small && matching.count > 1 ? matching[1] : matching.first
    }

    // MARK: - Driven by the pacer

    /// Runs `body` on the transport's I/O thread.
    func execute(_ body: @escaping @Sendable (LoadPublisher, PeerTransport) -> Void) {
        transport?.execute { [self] t in body(self, t) }
    }

    /// Sends every frame due now (I/O thread).
    func sendDue(now: Int64, on transport: PeerTransport) {
        guard let startTime else { return }
        for stream in streams { stream.sendDue(elapsed: now - startTime, on: transport) }
    }

    /// One compound of sender reports (I/O thread).
    func sendReports(on transport: PeerTransport) {
        let reports = streams.compactMap { $0.senderReport() }.map(RTCPPacket.senderReport)
        guard !reports.isEmpty else { return }
        RTCPCompound.serialize(reports).withUnsafeBytes { _ = transport.sendRTCP($0) }
    }

    func close() {
        transport?.close()
    }

    // MARK: - PeerTransportDelegate (I/O thread)

    package func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        switch state {
        case .connected:
            if startTime == nil { started.store(LoadClock.now(), ordering: .releasing) }
            connected.store(true, ordering: .releasing)
        case .failed, .closed:
            failed.store(true, ordering: .releasing)
            connected.store(false, ordering: .releasing)
        case .new, .checking:
            break
        }
    }

    package func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {}

    package func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        guard let compound = try? RTCPCompoundView(UnsafeRawBufferPointer(packet)) else { return }
        let now = LoadClock.now()
        for slice in compound {
            switch (slice.header.packetType, slice.header.count) {
            case (RTCPPacketType.transportFeedback, TransportLayerNack.format):
                guard let nack = try? TransportLayerNack(parsing: slice.bytes) else { continue }
                stream(ssrc: nack.mediaSSRC)?.retransmit(nack.lostSequenceNumbers, on: transport)
            case (RTCPPacketType.payloadFeedback, PictureLossIndication.format):
                guard let pli = try? PictureLossIndication(parsing: slice.bytes) else { continue }
                stream(ssrc: pli.mediaSSRC)?.keyFrameRequested(now: now)
            case (RTCPPacketType.payloadFeedback, FullIntraRequest.format):
                guard let fir = try? FullIntraRequest(parsing: slice.bytes) else { continue }
                for entry in fir.entries { stream(ssrc: entry.ssrc)?.keyFrameRequested(now: now) }
            default:
                continue
            }
        }
    }

    private func stream(ssrc: UInt32) -> LoadStreamSender? {
        streams.first { $0.ssrc == ssrc }
    }
}
