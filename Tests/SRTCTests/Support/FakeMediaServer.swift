import Foundation
import RTCNet
import RTCTransport
import RTCWire
import Synchronization
@testable import SRTCCore

/// The media half of an SFU for the SDK's unit tests: an ICE-lite, DTLS-server transport on a
/// shared `MediaPort` that answers publish offers and writes subscriber offers the way the
/// server does, and records what the client sends.
final class FakeMediaServer: PeerTransportDelegate, @unchecked Sendable {
    let port: MediaPort
    let certificate: DTLSCertificate
    let ice = ICECredentials.random()
    private let transportBox = Mutex<PeerTransport?>(nil)
    private let received = Mutex<(rtp: [[UInt8]], rtcp: [[UInt8]], states: [PeerTransport.State])>(([], [], []))

    init() throws {
        port = try MediaPort(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        certificate = try DTLSCertificate()
    }

    var transport: PeerTransport? { transportBox.withLock { $0 } }
    var rtp: [[UInt8]] { received.withLock { $0.rtp } }
    var rtcp: [[UInt8]] { received.withLock { $0.rtcp } }
    var isConnected: Bool { transport?.state == .connected }

    private var transportParameters: TransportParameters {
        TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                            fingerprint: Fingerprint(algorithm: certificate.fingerprint.algorithm, bytes: certificate.fingerprint.bytes),
                            setup: .passive,
                            candidates: [Candidate(foundation: "1", priority: Candidate.priority(typePreference: 126),
                                                   address: "127.0.0.1", port: port.localAddress.port)])
    }

    /// Answers a publish offer: ICE-lite, `a=setup:passive`, one host candidate.
    func answer(_ offerText: String) throws -> String {
        let offer = try SessionDescription(parsing: offerText)
        try listen(for: offer)
        return offer.answer(AnswerOptions(transport: transportParameters, iceLite: true, sessionID: "1")).serialize()
    }

    /// A subscriber offer with one sending section per stream.
    func offer(_ streams: [(mid: String, kind: TrackKind, trackId: String, ssrc: UInt32)]) -> String {
        let media = streams.map { s -> MediaDescription in
            var m = MediaDescription(kind: s.kind == .audio ? .audio : .video, mid: s.mid, direction: .sendonly,
                                     codecs: SDPNegotiation.codecs(for: s.kind),
                                     extensions: SDPNegotiation.publishExtensions(for: s.kind).filter { $0.uri != RTPHeaderExtensionURI.rid })
            m.addSendStream(ssrc: s.ssrc, cname: "sfu", streamID: "publisher", trackID: s.trackId)
            return m
        }
        var parameters = transportParameters
        parameters.setup = .actpass
        return SessionDescription.offer(sessionID: "2", transport: parameters, media: media, iceLite: true).serialize()
    }

    /// Takes the client's answer to `offer(_:)`.
    func accept(_ answerText: String) throws {
        try listen(for: try SessionDescription(parsing: answerText))
    }

    private func listen(for client: SessionDescription) throws {
        guard let section = client.media.first, let ufrag = client.iceUfrag(of: section), let pwd = client.icePwd(of: section),
              let fingerprint = client.fingerprints(of: section).first else { throw SRTCError.mediaFailed("client SDP incomplete") }
        let transport = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: ice, remoteICE: ICECredentials(ufrag: ufrag, pwd: pwd), certificate: certificate,
            remoteFingerprint: DTLSFingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes), dtlsRole: .server,
            connectTimeout: .seconds(10)), delegate: self)
        transportBox.withLock { $0 = transport }
    }

    /// Sends RTP packets to the client from the port's I/O thread.
    func send(rtp packets: [[UInt8]]) {
        transport?.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
    }

    func send(rtcp packets: [RTCPPacket]) {
        let bytes = RTCPCompound.serialize(packets)
        transport?.execute { t in bytes.withUnsafeBytes { _ = t.sendRTCP($0) } }
    }

    func stop() {
        transport?.close()
        port.stop()
    }

    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        received.withLock { $0.states.append(state) }
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        received.withLock { $0.rtp.append(Array(packet)) }
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        received.withLock { $0.rtcp.append(Array(packet)) }
    }
}
