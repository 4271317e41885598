import TestWait
import Testing
import Foundation
import RTCNet
@testable import RTCTransport

/// Client transports on shared I/O threads (`PeerTransportParameters.sharedLoops`, the load
/// generator's): every one connects (ICE, DTLS, SRTP on its thread's timers) and receives exactly
/// the packets its own server transport sent, decrypted or counted from the clear header.
@Suite(.serialized) struct SharedLoopTransportTests {
    @Test(arguments: [1, 4])
    func twelveTransportsOnThreeThreadsEachReceiveOnlyTheirOwnPackets(decryptionInterval: Int) async throws {
        let loops = try SharedUDPLoops(threadCount: 3, name: "srtc-test-tr")
        defer { loops.shutdown() }
        let local = SocketAddress(ip: "127.0.0.1", port: 0)!
        let port = try MediaPort(bind: local)
        defer { port.stop() }
        var pairs: [(server: PeerTransport, client: PeerTransport, log: RecordingDelegate)] = []
        let serverLog = RecordingDelegate()
        for _ in 0..<12 {
            let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
            let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
            let server = try port.makeTransport(PeerTransportParameters(
                iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: serverCert,
                remoteFingerprint: clientCert.fingerprint, dtlsRole: .server), delegate: serverLog)
            var parameters = PeerTransportParameters(
                iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
                remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
                remoteFingerprint: serverCert.fingerprint, dtlsRole: .client)
            parameters.sharedLoops = loops
            parameters.rtpDecryptionInterval = decryptionInterval
            let log = RecordingDelegate()
            pairs.append((server, try PeerTransport.client(parameters, bind: local, delegate: log), log))
        }
        for pair in pairs {
            #expect(await pair.log.waitFor { $0.states.last == .connected })
        }
        #expect(loops.socketsPerThread == [4, 4, 4])       // round-robin (attached on each thread as it starts)
        #expect(await serverLog.waitFor { $0.states.filter { $0 == .connected }.count == 12 })
        // Server transport i sends 3 + i packets with SSRC 0x100 + i.
        for (i, pair) in pairs.enumerated() {
            let packets = (0..<(3 + i)).map { SRTPTests.rtp(seq: UInt16($0), ssrc: UInt32(0x100 + i)) }
            pair.server.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        }
        for (i, pair) in pairs.enumerated() {
            #expect(await pair.log.waitFor { $0.rtp.count + $0.protectedRTP.count == 3 + i }, "transport \(i)")
            let seen = pair.log.log.withLock { $0.rtp + $0.protectedRTP }
            // Bytes 8–11: the SSRC, in the clear either way (RFC 3711 §3.1).
            #expect(seen.allSatisfy { Array($0[8..<12]) == [0, 0, 1, UInt8(i)] }, "transport \(i) got another's packets")
            if decryptionInterval > 1 { #expect(pair.log.log.withLock { $0.rtp.count } == (3 + i + decryptionInterval - 1) / decryptionInterval) }
            // And the other way: the client's packet reaches the server on the shared thread's send queue.
            pair.client.execute { t in SRTPTests.rtp(seq: 1, ssrc: UInt32(0x200 + i)).withUnsafeBytes { _ = t.sendRTP($0) } }
        }
        #expect(await serverLog.waitFor { $0.rtp.count == 12 })
        for pair in pairs {
            pair.client.close()
            pair.server.close()
        }
        // Closing waits for each socket to leave its thread.
        #expect(loops.socketsPerThread == [0, 0, 0])
    }
}
