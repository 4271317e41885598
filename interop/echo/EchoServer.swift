import Foundation
import Synchronization
import RTCNet
import RTCTransport
import RTCWire

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

    /// Makes a transport for `offerSDP` and returns the answer: ICE-lite, `a=setup:passive`,
    /// BUNDLE and rtcp-mux, Opus and VP8 only, no header extensions, one send stream per section.
    func answer(_ offerSDP: String) throws -> String {
        let offer = try SessionDescription(parsing: offerSDP)
        guard let first = offer.media.first(where: { !$0.isRejected }),
              let ufrag = offer.iceUfrag(of: first), let pwd = offer.icePwd(of: first),
              let offeredFingerprint = offer.fingerprints(of: first).first else {
            throw DTLSError.badFingerprint("offer without ICE credentials or fingerprint")
        }
        let ice = ICECredentials.random()
        let candidate = ICECandidate(address: port.localAddress).sdpCandidate
        let opus = Codec(payloadType: 111, name: "opus", clockRate: 48_000, channels: 2,
                         formatParameters: "minptime=10;useinbandfec=1")
        let options = AnswerOptions(
            transport: TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                                           fingerprint: certificate.fingerprint.sdpFingerprint,
                                           setup: .passive, candidates: [candidate], endOfCandidates: true),
            capabilities: MediaCapabilities(audioCodecs: [opus], videoCodecs: [.vp8()], headerExtensions: []),
            iceLite: true, sessionID: String(UInt64.random(in: 1...UInt64(Int64.max))), acceptDataChannel: false)
        var answer = offer.answer(options)
        let audioSSRC = UInt32.random(in: 1...UInt32.max), videoSSRC = UInt32.random(in: 1...UInt32.max)
        var audioPT = -1, videoPT = -1
        for i in answer.media.indices where !answer.media[i].isRejected {
            let pt = answer.media[i].codecs.first.map { Int($0.payloadType) } ?? -1
            switch answer.media[i].kind {
            case .audio:
                audioPT = pt
                answer.media[i].addSendStream(ssrc: audioSSRC, cname: "srtc-echo", streamID: "echo", trackID: "echo-audio")
            case .video:
                videoPT = pt
                answer.media[i].addSendStream(ssrc: videoSSRC, cname: "srtc-echo", streamID: "echo", trackID: "echo-video")
            default:
                break
            }
        }
        let session = EchoSession(audioPT: audioPT, videoPT: videoPT, audioSSRC: audioSSRC, videoSSRC: videoSSRC, log: Self.log)
        let transport = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: ice, remoteICE: ICECredentials(ufrag: ufrag, pwd: pwd), certificate: certificate,
            remoteFingerprint: DTLSFingerprint(offeredFingerprint),
            dtlsRole: .server, srtpProfiles: profiles), delegate: session)
        sessions.withLock { $0.append((transport, session)) }
        Self.log("offer: ufrag \(ufrag), sections \(offer.media.map { "\($0.kind)#\($0.mid ?? "-")" }), "
                 + "opus PT \(audioPT), VP8 PT \(videoPT)")
        return answer.serialize()
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
