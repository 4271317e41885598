import TestWait
import Testing
import Foundation
import Synchronization
import RTCNet
import RTCWire
#if canImport(Glibc)
import Glibc
#endif
@testable import RTCTransport
import TestRandom

/// Records what a transport reports, from its I/O thread.
final class RecordingDelegate: PeerTransportDelegate, @unchecked Sendable {
    struct Log {
        var states: [PeerTransport.State] = []
        var rtp: [[UInt8]] = []
        var rtcp: [[UInt8]] = []
        /// RTP packets handed over undecrypted (`rtpDecryptionInterval`).
        var protectedRTP: [[UInt8]] = []
        var dataChannel: [DataChannelEndpoint.Event] = []
        /// `didMoveTo`: (to, from).
        var moves: [(SocketAddress, SocketAddress)] = []
    }
    let log = Mutex(Log())
    /// Called for each RTP packet on the I/O thread (e.g. to echo).
    var onRTP: ((PeerTransport, UnsafeMutableRawBufferPointer) -> Void)?

    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        log.withLock { $0.states.append(state) }
    }
    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        log.withLock { $0.rtp.append(Array(packet)) }
        onRTP?(transport, packet)
    }
    func peerTransport(_ transport: PeerTransport, didReceiveProtectedRTP packet: UnsafeMutableRawBufferPointer) {
        log.withLock { $0.protectedRTP.append(Array(packet)) }
    }
    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        log.withLock { $0.rtcp.append(Array(packet)) }
    }
    func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {
        log.withLock { $0.dataChannel.append(event) }
    }
    func peerTransport(_ transport: PeerTransport, didMoveTo address: SocketAddress, from previous: SocketAddress) {
        log.withLock { $0.moves.append((address, previous)) }
    }

    /// Whether `condition` comes to hold on the log (TestWait's polling, off the lock between polls).
    func waitFor(_ condition: (Log) -> Bool) async -> Bool {
        await holds { log.withLock { condition($0) } }
    }
}

/// A server transport on a shared `MediaPort` and a client transport with its own socket.
struct LoopbackPeers {
    let port: MediaPort
    let server: PeerTransport
    let client: PeerTransport
    let serverDelegate = RecordingDelegate()
    let clientDelegate = RecordingDelegate()

    /// - Parameter candidates: what the client is told to check (default: the port's UDP address);
    ///   the port listens for ICE-TCP too when given.
    init(clientProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80], serverExpects: DTLSFingerprint? = nil,
         host: String = "127.0.0.1", connectTimeout: Duration = .seconds(10), sctp: SCTPParameters? = nil,
         candidates: ((MediaPort) -> [ICECandidate])? = nil, clientDecryptionInterval: Int = 1) throws {
        let local = SocketAddress(ip: host, port: 0)!
        port = try MediaPort(bind: local, tcpBind: candidates == nil ? nil : local)
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        server = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: serverCert,
            remoteFingerprint: serverExpects ?? clientCert.fingerprint, dtlsRole: .server, connectTimeout: connectTimeout,
            sctp: sctp),
            delegate: serverDelegate)
        var clientParameters = PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: candidates?(port) ?? [ICECandidate(address: port.localAddress)], certificate: clientCert,
            remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, srtpProfiles: clientProfiles,
            connectTimeout: connectTimeout, sctp: sctp)
        clientParameters.rtpDecryptionInterval = clientDecryptionInterval
        client = try PeerTransport.client(clientParameters, bind: SocketAddress(ip: host, port: 0)!, delegate: clientDelegate)
    }

    func shutdown() {
        client.close()
        server.close()
        port.stop()
    }
}

@Suite(.serialized) struct PeerTransportTests {
    @Test(arguments: SRTPProfile.allCases)
    func loopbackPeersConnectAndExchangeSRTPAndSRTCPBothWays(profile: SRTPProfile) async throws {
        let peers = try LoopbackPeers(clientProfiles: [profile])
        defer { peers.shutdown() }
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.clientDelegate.log.withLock { $0.states } == [.checking, .connected])
        #expect(peers.client.srtpProfile == profile)
        #expect(peers.server.srtpProfile == profile)
        #expect(peers.server.remoteAddress == peers.client.localAddress)

        // Client → server: 20 RTP packets and one RTCP receiver report.
        let packets = (0..<20).map { SRTPTests.rtp(seq: UInt16(1000 + $0), ssrc: 0x1111, payloadLength: 100 + $0) }
        peers.client.execute { t in
            for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } }
            SRTPTests.rtcp.withUnsafeBytes { _ = t.sendRTCP($0) }
        }
        #expect(await peers.serverDelegate.waitFor { $0.rtp.count == 20 && $0.rtcp.count == 1 })
        #expect(peers.serverDelegate.log.withLock { $0.rtp } == packets)
        #expect(peers.serverDelegate.log.withLock { $0.rtcp } == [SRTPTests.rtcp])

        // Server → client, sent from the port's I/O thread.
        let back = (0..<5).map { SRTPTests.rtp(seq: UInt16(7 + $0), ssrc: 0x2222) }
        peers.server.execute { t in
            for p in back { p.withUnsafeBytes { _ = t.sendRTP($0) } }
            SRTPTests.rtcp.withUnsafeBytes { _ = t.sendRTCP($0) }
        }
        #expect(await peers.clientDelegate.waitFor { $0.rtp.count == 5 && $0.rtcp.count == 1 })
        #expect(peers.clientDelegate.log.withLock { $0.rtp } == back)
    }

    /// A load generator's counting subscriber: one RTP packet in 4 is decrypted, the others arrive
    /// as sent on the wire less the SRTP tag, their headers in the clear (RFC 3711 §3.1).
    @Test(arguments: SRTPProfile.allCases)
    func aClientSamplingDecryptionGetsTheOtherPacketsWithTheirHeadersInTheClear(profile: SRTPProfile) async throws {
        let peers = try LoopbackPeers(clientProfiles: [profile], clientDecryptionInterval: 4)
        defer { peers.shutdown() }
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        let packets = (0..<20).map { SRTPTests.rtp(seq: UInt16(500 + $0), ssrc: 0x3333, payloadLength: 200) }
        peers.server.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await peers.clientDelegate.waitFor { $0.rtp.count + $0.protectedRTP.count == 20 })
        let log = peers.clientDelegate.log.withLock { $0 }
        // Packets 0, 4, 8, … decrypted; the others with the sent header and the sent length.
        #expect(log.rtp == stride(from: 0, to: 20, by: 4).map { packets[$0] })
        let undecrypted = packets.indices.filter { $0 % 4 != 0 }.map { packets[$0] }
        #expect(log.protectedRTP.map { Array($0[0..<12]) } == undecrypted.map { Array($0[0..<12]) })
        #expect(log.protectedRTP.map(\.count) == undecrypted.map(\.count))
        #expect(log.protectedRTP.map { Array($0[12...]) } != undecrypted.map { Array($0[12...]) }, "payloads stay encrypted")
    }

    @Test func echoFromInsideTheReceiveCallbackUsesTheBatchedSendPath() async throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        // The SFU path: receive → callback → rewrite SSRC while writing into the send slot → batched send.
        peers.serverDelegate.onRTP = { transport, packet in
            transport.sendRTP { slot in
                slot.copyMemory(from: UnsafeRawBufferPointer(packet))
                slot[8] = 0xEE; slot[9] = 0xEE; slot[10] = 0xEE; slot[11] = 0xEE
                return packet.count
            }
        }
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        let packets = (0..<50).map { SRTPTests.rtp(seq: UInt16($0), ssrc: 0x1234, payloadLength: 1000) }
        peers.client.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await peers.clientDelegate.waitFor { $0.rtp.count == 50 })
        let echoed = peers.clientDelegate.log.withLock { $0.rtp }
        #expect(echoed.map { Array($0[8..<12]) }.allSatisfy { $0 == [0xEE, 0xEE, 0xEE, 0xEE] })
        #expect(echoed.map { Array($0[12...]) } == packets.map { Array($0[12...]) })
    }

    @Test func wrongFingerprintFailsTheServerTransport() async throws {
        let stranger = try DTLSCertificate()
        let peers = try LoopbackPeers(serverExpects: stranger.fingerprint, connectTimeout: .seconds(3))
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .failed })
        #expect(!peers.serverDelegate.log.withLock { $0.states }.contains(.connected))
        #expect(peers.server.srtpProfile == nil)
        // The client never gets SRTP keys either. The server's alert is plaintext, which nobody
        // may trust (anyone could have sent it), so the client fails at its connect timeout.
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .failed })
    }

    @Test func replayedSRTPPacketIsRejected() async throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        // The same packet protected twice gives the same SRTP bytes (same index): a replay.
        let packet = SRTPTests.rtp(seq: 4242, ssrc: 0x5555)
        peers.client.execute { t in
            packet.withUnsafeBytes { _ = t.sendRTP($0) }
            t.flush()
            packet.withUnsafeBytes { _ = t.sendRTP($0) }
            SRTPTests.rtp(seq: 4243, ssrc: 0x5555).withUnsafeBytes { _ = t.sendRTP($0) }
        }
        #expect(await peers.serverDelegate.waitFor { $0.rtp.count == 2 })
        // A marker sent after them: once it is in, the replay was handled (one socket, in order).
        let marker = SRTPTests.rtp(seq: 4244, ssrc: 0x5555)
        peers.client.execute { t in marker.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await peers.serverDelegate.waitFor { $0.rtp.count == 3 })
        #expect(peers.serverDelegate.log.withLock { $0.rtp }.map { $0[2...3] } == [[0x10, 0x92], [0x10, 0x93], [0x10, 0x94]])
        let failures = Mutex(-1)
        peers.server.execute { t in failures.withLock { $0 = t.stats.unprotectFailures } }
        #expect(await holds { failures.withLock { $0 } != -1 })
        #expect(failures.withLock { $0 } == 1)
    }

    @Test func closeSendsCloseNotifyAndThePeerReportsClosed() async throws {
        let peers = try LoopbackPeers()
        defer { peers.port.stop() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        peers.client.close()
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .closed })
        #expect(peers.client.state == .closed)
    }

    @Test func ipv6LoopbackPeersConnect() async throws {
        guard (try? UDPSocket(bind: SocketAddress(ip: "::1", port: 0)!)) != nil else { return } // no IPv6 here
        let peers = try LoopbackPeers(host: "::1")
        defer { peers.shutdown() }
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.server.remoteAddress?.family == .ipv6)
        let packet = SRTPTests.rtp(seq: 1, ssrc: 0x6666)
        peers.client.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await peers.serverDelegate.waitFor { $0.rtp == [packet] })
    }

    @Test func twoClientsShareOnePortAndAreRoutedApart() async throws {
        let a = try LoopbackPeers()
        defer { a.shutdown() }
        // A second server transport on the same port, with its own client.
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverDelegate = RecordingDelegate(), clientDelegate = RecordingDelegate()
        let server2 = try a.port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: serverCert,
            remoteFingerprint: clientCert.fingerprint, dtlsRole: .server), delegate: serverDelegate)
        let client2 = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: a.port.localAddress)], certificate: clientCert,
            remoteFingerprint: serverCert.fingerprint, dtlsRole: .client),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: clientDelegate)
        defer { client2.close(); server2.close() }
        #expect(await a.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await serverDelegate.waitFor { $0.states.last == .connected })
        let p1 = SRTPTests.rtp(seq: 1, ssrc: 0xA1), p2 = SRTPTests.rtp(seq: 1, ssrc: 0xB2)
        // Both clients too: a DTLS server is done when it sends its Finished, the client only when that
        // flight arrives (RFC 6347 §4.2.4), and a client without SRTP keys drops what it is asked to send.
        #expect(await a.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await clientDelegate.waitFor { $0.states.last == .connected })
        a.client.execute { t in p1.withUnsafeBytes { _ = t.sendRTP($0) } }
        client2.execute { t in p2.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await a.serverDelegate.waitFor { $0.rtp == [p1] })
        #expect(await serverDelegate.waitFor { $0.rtp == [p2] })
    }

    @Test func aNominationFromANewAddressMovesTheServersMediaThere() async throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        // The client "moves": a new socket sends a valid nominating check with the client's credentials.
        let moved = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let p = peers.server.parameters
        let check = STUNMessage.iceBindingRequest(transactionID: .random(), username: "\(p.localICE.ufrag):\(p.remoteICE!.ufrag)",
                                                  priority: 1, controlling: true, tieBreaker: 1, useCandidate: true)
        moved.send(check.encoded(integrityKey: Array(p.localICE.pwd.utf8)), to: peers.port.localAddress)
        let receiver = UDPBatchReceiver(batchSize: 8, slotSize: 2048)
        var response: STUNMessage?
        for _ in 0..<50 where response == nil {
            var fds = [pollfd(fd: moved.descriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 100)
            receiver.receive(from: moved) { bytes, _ in response = try? STUNMessage(parsing: UnsafeRawBufferPointer(bytes)) }
        }
        #expect(response?.type == .bindingSuccess)
        #expect(peers.server.remoteAddress == moved.localAddress)
        // Media from the server now goes to the new address (still SRTP: the header stays clear).
        let packet = SRTPTests.rtp(seq: 77, ssrc: 0x7777)
        peers.server.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        var media: [UInt8]?
        for _ in 0..<50 where media == nil {
            var fds = [pollfd(fd: moved.descriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 100)
            receiver.receive(from: moved) { bytes, _ in media = Array(bytes) }
        }
        let received = try #require(media)
        #expect(Array(received.prefix(12)) == Array(packet.prefix(12)))
        #expect(received.count == packet.count + (peers.server.srtpProfile?.rtpOverhead ?? 0))
    }

    @Test func randomDatagramsAtThePortAreDroppedAndTheSessionSurvives() async throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        let attacker = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        var rng = SeededRandom(seed: 11)
        let firstBytes: [UInt8] = [0x00, 0x01, 0x16, 0x17, 0x80, 0x81, 0x40, 0xff]
        for i in 0..<2000 {
            var bytes = (0..<Int(rng.next() % 300 + 1)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            bytes[0] = firstBytes[i % firstBytes.count]
            if bytes.count >= 8, i % 3 == 0 { bytes[4] = 0x21; bytes[5] = 0x12; bytes[6] = 0xa4; bytes[7] = 0x42 }
            attacker.send(bytes, to: peers.port.localAddress)
            if i % 200 == 0 { try await Task.sleep(for: .milliseconds(2)) }
        }
        // Media still flows both ways afterwards, and the attacker's bytes reached no transport.
        let packet = SRTPTests.rtp(seq: 9000, ssrc: 0x9999)
        peers.client.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await peers.serverDelegate.waitFor { $0.rtp == [packet] })
        #expect(peers.server.state == .connected)
        let counts = Mutex((unrouted: 0, failures: -1))
        peers.port.execute { [port = peers.port, server = peers.server] in
            counts.withLock { $0 = (port.unroutedCount, server.stats.unprotectFailures) }
        }
        #expect(await holds { counts.withLock { $0.failures } != -1 })
        #expect(counts.withLock { $0.unrouted } > 1000)
        #expect(counts.withLock { $0.failures } == 0)
    }

    @Test func demuxClassifiesByFirstByte() {
        func kind(_ bytes: [UInt8]) -> PacketKind { bytes.withUnsafeBytes { PacketKind.classify($0) } }
        #expect(kind([0x00, 0x01]) == .stun)
        #expect(kind([0x16, 0xfe, 0xfd]) == .dtls) // handshake record, DTLS 1.2
        #expect(kind([0x80, 0x60]) == .rtp)        // PT 96
        #expect(kind([0x80, 0xE0]) == .rtp)        // PT 96 with marker
        #expect(kind([0x80, 0xC8]) == .rtcp)       // SR (200)
        #expect(kind([0x81, 0xCE]) == .rtcp)       // PSFB (206)
        #expect(kind([0x80]) == .unknown)
        #expect(kind([]) == .unknown)
        #expect(kind([0x40, 0x00]) == .unknown)    // TURN channel
    }
}

/// A server transport made before the peer's answer (RFC 8445 §7.3): checks are answered at once
/// and DTLS waits for the fingerprint.
@Suite(.serialized) struct EarlyTransportTests {
    /// Waits until ICE selected a remote address (a nominating first check skips "checking").
    static func selected(_ transport: PeerTransport) async -> Bool {
        await holds { await withCheckedContinuation { c in transport.execute { c.resume(returning: $0.remoteAddress != nil) } } }
    }

    @Test func checksBeforeTheAnswerAreAnsweredAndDTLSCompletesOnceTheAnswerIsIn() async throws {
        let port = try MediaPort(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { port.stop() }
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverDelegate = RecordingDelegate(), clientDelegate = RecordingDelegate()
        let server = try port.makeTransport(.awaitingAnswer(localICE: serverICE, certificate: serverCert), delegate: serverDelegate)
        // The client starts checking as soon as it has the offer, before the server has its answer.
        let client = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
            remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(10)),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: clientDelegate)
        defer { client.close(); server.close() }
        // ICE succeeds without the answer: the server answered the checks and selected the client.
        #expect(await Self.selected(server))
        #expect(server.state != .connected)
        server.completeNegotiation(remoteICE: clientICE, remoteFingerprint: clientCert.fingerprint)
        #expect(await serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await clientDelegate.waitFor { $0.states.last == .connected })
        let packet = SRTPTests.rtp(seq: 1, ssrc: 0x3333)
        client.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await serverDelegate.waitFor { $0.rtp == [packet] })
    }

    @Test func aWrongFingerprintInTheAnswerFailsTheHandshake() async throws {
        let port = try MediaPort(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { port.stop() }
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate(), other = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverDelegate = RecordingDelegate()
        let server = try port.makeTransport(.awaitingAnswer(localICE: serverICE, certificate: serverCert), delegate: serverDelegate)
        let client = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
            remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(10)),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: RecordingDelegate())
        defer { client.close(); server.close() }
        #expect(await Self.selected(server))
        server.completeNegotiation(remoteICE: clientICE, remoteFingerprint: other.fingerprint)
        #expect(await serverDelegate.waitFor { $0.states.last == .failed })
    }
}
