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
        let serverLog = RecordingDelegate()
        let pairs = try Self.pairs(12, on: port, loops: loops, serverLog: serverLog) { $0.rtpDecryptionInterval = decryptionInterval }
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

    /// A counting client (`sweepWhenConnected`, `rtpDecryptionInterval: .max`, the load
    /// generator's counting-only subscriber): once connected its socket moves to its thread's
    /// swept set, and it still gets exactly what its server transport sent, in order, the first
    /// RTP packet decrypted and the rest handed over with their clear headers; RTCP is still
    /// decrypted, and closing takes the socket off the swept set.
    @Test func sweptClientsCountExactlyWhatTheirServerSent() async throws {
        let loops = try SharedUDPLoops(threadCount: 2, sweepInterval: .milliseconds(5), name: "srtc-test-sw")
        defer { loops.shutdown() }
        let local = SocketAddress(ip: "127.0.0.1", port: 0)!
        let port = try MediaPort(bind: local)
        defer { port.stop() }
        let serverLog = RecordingDelegate()
        let pairs = try Self.pairs(4, on: port, loops: loops, serverLog: serverLog) { parameters in
            parameters.rtpDecryptionInterval = .max
            parameters.sweepWhenConnected = true
        }
        for pair in pairs {
            #expect(await pair.log.waitFor { $0.states.last == .connected })
        }
        #expect(loops.sweptSocketsPerThread == [2, 2])
        // Server transport i sends 250 + i packets (sequence numbers 0, 1, …) with SSRC 0x300 + i,
        // in one burst (more than one recvmmsg batch waits in each socket), then a receiver report.
        for (i, pair) in pairs.enumerated() {
            let packets = (0..<(250 + i)).map { SRTPTests.rtp(seq: UInt16($0), ssrc: UInt32(0x300 + i), payloadLength: 200) }
            pair.server.execute { t in
                for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } }
                SRTPTests.rtcp.withUnsafeBytes { _ = t.sendRTCP($0) }
            }
        }
        for (i, pair) in pairs.enumerated() {
            #expect(await pair.log.waitFor { $0.rtp.count + $0.protectedRTP.count == 250 + i && $0.rtcp.count == 1 }, "transport \(i)")
            let (decrypted, counted) = pair.log.log.withLock { ($0.rtp, $0.protectedRTP) }
            #expect(decrypted.count == 1)                   // the first: the keys work
            // Every packet once, in order, its own SSRC (bytes 8–11) and sequence number (2–3) in the clear (RFC 3711 §3.1).
            let sequences = (decrypted + counted).map { Int($0[2]) << 8 | Int($0[3]) }
            #expect(sequences == Array(0..<(250 + i)), "transport \(i)")
            #expect((decrypted + counted).allSatisfy { Array($0[8..<12]) == [0, 0, 3, UInt8(i)] }, "transport \(i) got another's packets")
            // A swept transport still sends at once (its thread's send queue).
            pair.client.execute { t in SRTPTests.rtp(seq: 1, ssrc: UInt32(0x400 + i)).withUnsafeBytes { _ = t.sendRTP($0) } }
        }
        #expect(await serverLog.waitFor { $0.rtp.count == 4 })
        try await Task.sleep(for: .milliseconds(50))
        for pair in pairs {
            #expect(pair.client.state == .connected)
            pair.client.close()
            pair.server.close()
        }
        #expect(loops.sweptSocketsPerThread == [0, 0])
        #expect(loops.socketsPerThread == [0, 0])
    }

    /// `count` server transports on `port` (their events in `serverLog`), each with its client on
    /// `loops`, the client's parameters adjusted by `configure`; the clients start checking at once.
    static func pairs(_ count: Int, on port: MediaPort, loops: SharedUDPLoops, serverLog: RecordingDelegate,
                      configure: (inout PeerTransportParameters) -> Void) throws
        -> [(server: PeerTransport, client: PeerTransport, log: RecordingDelegate)] {
        try (0..<count).map { _ in
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
            configure(&parameters)
            let log = RecordingDelegate()
            return (server, try PeerTransport.client(parameters, bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: log), log)
        }
    }
}
