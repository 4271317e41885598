import Testing
import Foundation
import Synchronization
import RTCNet
@testable import RTCTransport

/// Records what a transport reports, from its I/O thread.
final class RecordingDelegate: PeerTransportDelegate, @unchecked Sendable {
    struct Log {
        var states: [PeerTransport.State] = []
        var rtp: [[UInt8]] = []
        var rtcp: [[UInt8]] = []
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
    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        log.withLock { $0.rtcp.append(Array(packet)) }
    }

    func waitFor(_ timeout: TimeInterval = 10, _ condition: (Log) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log.withLock({ condition($0) }) { return true }
            usleep(5_000)
        }
        return log.withLock { condition($0) }
    }
}

/// A server transport on a shared `MediaPort` and a client transport with its own socket.
struct LoopbackPeers {
    let port: MediaPort
    let server: PeerTransport
    let client: PeerTransport
    let serverDelegate = RecordingDelegate()
    let clientDelegate = RecordingDelegate()

    init(clientProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80], serverExpects: DTLSFingerprint? = nil,
         host: String = "127.0.0.1") throws {
        port = try MediaPort(bind: SocketAddress(ip: host, port: 0)!)
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        server = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: serverCert,
            remoteFingerprint: serverExpects ?? clientCert.fingerprint, dtlsRole: .server, connectTimeout: .seconds(10)),
            delegate: serverDelegate)
        client = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
            remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, srtpProfiles: clientProfiles,
            connectTimeout: .seconds(10)),
            bind: SocketAddress(ip: host, port: 0)!, delegate: clientDelegate)
    }

    func shutdown() {
        client.close()
        server.close()
        port.stop()
    }
}

@Suite(.serialized) struct PeerTransportTests {
    @Test(arguments: SRTPProfile.allCases)
    func loopbackPeersConnectAndExchangeSRTPAndSRTCPBothWays(profile: SRTPProfile) throws {
        let peers = try LoopbackPeers(clientProfiles: [profile])
        defer { peers.shutdown() }
        #expect(peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.serverDelegate.waitFor { $0.states.last == .connected })
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
        #expect(peers.serverDelegate.waitFor { $0.rtp.count == 20 && $0.rtcp.count == 1 })
        #expect(peers.serverDelegate.log.withLock { $0.rtp } == packets)
        #expect(peers.serverDelegate.log.withLock { $0.rtcp } == [SRTPTests.rtcp])

        // Server → client, sent from the port's I/O thread.
        let back = (0..<5).map { SRTPTests.rtp(seq: UInt16(7 + $0), ssrc: 0x2222) }
        peers.server.execute { t in
            for p in back { p.withUnsafeBytes { _ = t.sendRTP($0) } }
            SRTPTests.rtcp.withUnsafeBytes { _ = t.sendRTCP($0) }
        }
        #expect(peers.clientDelegate.waitFor { $0.rtp.count == 5 && $0.rtcp.count == 1 })
        #expect(peers.clientDelegate.log.withLock { $0.rtp } == back)
    }

    @Test func echoFromInsideTheReceiveCallbackUsesTheBatchedSendPath() throws {
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
        #expect(peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.serverDelegate.waitFor { $0.states.last == .connected })
        let packets = (0..<50).map { SRTPTests.rtp(seq: UInt16($0), ssrc: 0x1234, payloadLength: 1000) }
        peers.client.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(peers.clientDelegate.waitFor { $0.rtp.count == 50 })
        let echoed = peers.clientDelegate.log.withLock { $0.rtp }
        #expect(echoed.map { Array($0[8..<12]) }.allSatisfy { $0 == [0xEE, 0xEE, 0xEE, 0xEE] })
        #expect(echoed.map { Array($0[12...]) } == packets.map { Array($0[12...]) })
    }

    @Test func wrongFingerprintFailsTheServerTransport() throws {
        let stranger = try DTLSCertificate()
        let peers = try LoopbackPeers(serverExpects: stranger.fingerprint)
        defer { peers.shutdown() }
        #expect(peers.serverDelegate.waitFor { $0.states.last == .failed })
        #expect(!peers.serverDelegate.log.withLock { $0.states }.contains(.connected))
        #expect(peers.server.srtpProfile == nil)
        // The client never gets SRTP keys either: it hears the alert and fails.
        #expect(peers.clientDelegate.waitFor { $0.states.last == .failed })
    }

    @Test func replayedSRTPPacketIsRejected() throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        #expect(peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.clientDelegate.waitFor { $0.states.last == .connected })
        // The same packet protected twice gives the same SRTP bytes (same index): a replay.
        let packet = SRTPTests.rtp(seq: 4242, ssrc: 0x5555)
        peers.client.execute { t in
            packet.withUnsafeBytes { _ = t.sendRTP($0) }
            t.flush()
            packet.withUnsafeBytes { _ = t.sendRTP($0) }
            SRTPTests.rtp(seq: 4243, ssrc: 0x5555).withUnsafeBytes { _ = t.sendRTP($0) }
        }
        #expect(peers.serverDelegate.waitFor { $0.rtp.count == 2 })
        usleep(100_000)
        #expect(peers.serverDelegate.log.withLock { $0.rtp }.map { $0[2...3] } == [[0x10, 0x92], [0x10, 0x93]])
        let failures = Mutex(-1)
        peers.server.execute { t in failures.withLock { $0 = t.stats.unprotectFailures } }
        usleep(50_000)
        #expect(failures.withLock { $0 } == 1)
    }

    @Test func closeSendsCloseNotifyAndThePeerReportsClosed() throws {
        let peers = try LoopbackPeers()
        defer { peers.port.stop() }
        #expect(peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.clientDelegate.waitFor { $0.states.last == .connected })
        peers.client.close()
        #expect(peers.serverDelegate.waitFor { $0.states.last == .closed })
        #expect(peers.client.state == .closed)
    }

    @Test func ipv6LoopbackPeersConnect() throws {
        guard (try? UDPSocket(bind: SocketAddress(ip: "::1", port: 0)!)) != nil else { return } // no IPv6 here
        let peers = try LoopbackPeers(host: "::1")
        defer { peers.shutdown() }
        #expect(peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(peers.server.remoteAddress?.family == .ipv6)
        let packet = SRTPTests.rtp(seq: 1, ssrc: 0x6666)
        peers.client.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(peers.serverDelegate.waitFor { $0.rtp == [packet] })
    }

    @Test func twoClientsShareOnePortAndAreRoutedApart() throws {
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
        #expect(a.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(serverDelegate.waitFor { $0.states.last == .connected })
        let p1 = SRTPTests.rtp(seq: 1, ssrc: 0xA1), p2 = SRTPTests.rtp(seq: 1, ssrc: 0xB2)
        #expect(clientDelegate.waitFor { $0.states.last == .connected })
        a.client.execute { t in p1.withUnsafeBytes { _ = t.sendRTP($0) } }
        client2.execute { t in p2.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(a.serverDelegate.waitFor { $0.rtp == [p1] })
        #expect(serverDelegate.waitFor { $0.rtp == [p2] })
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
