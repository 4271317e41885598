import Foundation
import Synchronization
import RTCNet
import RTCTransport

/// The echo endpoint: one `MediaPort`, one certificate, one `EchoSession` per offer.
final class EchoServer: Sendable {
    let port: MediaPort
    let certificate: DTLSCertificate
    /// SRTP profiles the endpoint accepts, in preference order (ECHO_SRTP_PROFILES, comma-separated OpenSSL names).
    let profiles: [SRTPProfile]
    private let sessions = Mutex<[(PeerTransport, EchoSession)]>([])

    static func log(_ text: String) {
        FileHandle.standardError.write(Data("[echo] \(text)\n".utf8))
    }

    init(bindHost: String) throws {
        guard let bindAddress = SocketAddress(ip: bindHost, port: 0) else { throw NetError.invalidURL(bindHost) }
        port = try MediaPort(bind: bindAddress)
        certificate = try DTLSCertificate()
        let names = ProcessInfo.processInfo.environment["ECHO_SRTP_PROFILES"]?.split(separator: ",").map(String.init)
        profiles = names?.compactMap(SRTPProfile.init(openSSLName:)) ?? [.aeadAES128GCM, .aes128CMSHA1_80]
        Self.log("media port \(port.localAddress), fingerprint \(certificate.fingerprint.sdpValue), SRTP profiles \(profiles)")
    }

    /// Makes a transport for `offerSDP` and returns the answer.
    func answer(_ offerSDP: String) throws -> String {
        let offer = EchoOffer(offerSDP)
        let remoteFingerprint = try DTLSFingerprint(sdpValue: offer.fingerprint)
        let ice = ICECredentials.random()
        let audioPT = offer.sections.first { $0.kind == "audio" }?.payloadTypes["opus/48000/2"]
        let videoPT = offer.sections.first { $0.kind == "video" }?.payloadTypes["vp8/90000"]
        let audioSSRC = UInt32.random(in: 1...UInt32.max), videoSSRC = UInt32.random(in: 1...UInt32.max)
        let session = EchoSession(audioPT: audioPT ?? -1, videoPT: videoPT ?? -1,
                                  audioSSRC: audioSSRC, videoSSRC: videoSSRC, log: Self.log)
        let transport = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: ice, remoteICE: ICECredentials(ufrag: offer.ufrag, pwd: offer.pwd),
            certificate: certificate, remoteFingerprint: remoteFingerprint, dtlsRole: .server, srtpProfiles: profiles),
            delegate: session)
        sessions.withLock { $0.append((transport, session)) }
        Self.log("offer: ufrag \(offer.ufrag), sections \(offer.sections.map { "\($0.kind)#\($0.mid)" }), "
                 + "opus PT \(audioPT ?? -1), VP8 PT \(videoPT ?? -1)")
        return EchoAnswer.make(offer: offer, ice: ice, fingerprint: certificate.fingerprint,
                               candidate: ICECandidate(address: port.localAddress),
                               audio: audioPT.map { ($0, audioSSRC) }, video: videoPT.map { ($0, videoSSRC) })
    }

    /// Sends a PLI to every connected browser, on the I/O thread.
    func requestKeyFrames() {
        let current = sessions.withLock { $0 }
        port.execute {
            for (transport, session) in current where transport.state == .connected {
                session.requestKeyFrame(on: transport)
            }
        }
    }

    func closeAll() {
        for (transport, _) in sessions.withLock({ $0 }) { transport.close() }
    }
}
