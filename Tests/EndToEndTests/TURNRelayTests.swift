import Foundation
import RTCNet
import RTCTransport
import RTCWire
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// The client's TURN relay (RFC 8656) through a real coturn the test starts: a relay-only client
/// transport allocates, binds a channel to the media port and runs ICE, DTLS and SRTP through it.
@Suite(.serialized) struct TURNRelayTests {
    /// Counts what a transport reports (I/O thread).
    final class Recorder: PeerTransportDelegate, @unchecked Sendable {
        let states = Mutex<[PeerTransport.State]>([])
        let rtp = Mutex<[[UInt8]]>([])
        func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) { states.withLock { $0.append(state) } }
        func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) { rtp.withLock { $0.append(Array(packet)) } }
        func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {}
    }

    static func rtp(seq: UInt16) -> [UInt8] {
        [0x80, 96, UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0, 1, 0xAB, 0xCD, 0xEF, 0x01] + (0..<200).map { UInt8(truncatingIfNeeded: Int(seq) &+ $0) }
    }

    @Test func aRelayOnlyClientReachesTheMediaPortThroughCoturnAndSRTPFlowsBothWays() async throws {
        let coturn = try await TestCoturn()
        let loopback = SocketAddress(ip: "127.0.0.1", port: 0)!
        let port = try MediaPort(bind: loopback)
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverLog = Recorder(), clientLog = Recorder()
        let server = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: serverCert,
            remoteFingerprint: clientCert.fingerprint, dtlsRole: .server, connectTimeout: .seconds(30)), delegate: serverLog)
        let (username, password) = coturn.credentials(uid: "relayed")
        var parameters = PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE, remoteCandidates: [ICECandidate(address: port.localAddress)],
            certificate: clientCert, remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(30))
        parameters.turnServer = TURNServer(address: SocketAddress(ip: "127.0.0.1", port: coturn.port)!, username: username, password: password)
        parameters.relayOnly = true
        let client = try PeerTransport.client(parameters, bind: loopback, delegate: clientLog)
        defer { client.close(); server.close(); port.stop() }

        try await eventually("both transports connected (coturn log: \(coturn.log.suffix(600)))") {
            clientLog.states.withLock { $0.last == .connected } && serverLog.states.withLock { $0.last == .connected }
        }
        // The media port sees the client at coturn's relayed address, never at its own socket.
        let seen = try #require(server.remoteAddress)
        #expect(coturn.relayPorts.contains(seen.port), "server sees \(seen), relay ports \(coturn.relayPorts)")
        #expect(seen != client.localAddress)
        #expect(client.relayChannel != nil)

        let up = (0..<30).map { Self.rtp(seq: UInt16($0)) }
        client.execute { t in for p in up { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        try await eventually("30 packets up through the relay") { serverLog.rtp.withLock { $0.count } == 30 }
        #expect(serverLog.rtp.withLock { $0 } == up)
        let down = (100..<110).map { Self.rtp(seq: UInt16($0)) }
        server.execute { t in for p in down { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        try await eventually("10 packets down through the relay") { clientLog.rtp.withLock { $0.count } == 10 }
        #expect(clientLog.rtp.withLock { $0 } == down)
        #expect(coturn.log.contains("ALLOCATE") && coturn.log.contains("CHANNEL_BIND"))
        await coturn.stop()
    }

    @Test func wrongCredentialsFailTheRelayOnlyTransport() async throws {
        let coturn = try await TestCoturn()
        let loopback = SocketAddress(ip: "127.0.0.1", port: 0)!
        let port = try MediaPort(bind: loopback)
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let clientLog = Recorder()
        var parameters = PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE, remoteCandidates: [ICECandidate(address: port.localAddress)],
            certificate: clientCert, remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(8))
        parameters.turnServer = TURNServer(address: SocketAddress(ip: "127.0.0.1", port: coturn.port)!, username: "1:nobody", password: "wrong")
        parameters.relayOnly = true
        let client = try PeerTransport.client(parameters, bind: loopback, delegate: clientLog)
        defer { client.close(); port.stop() }
        try await eventually("the transport failed") { clientLog.states.withLock { $0.last == .failed } }
        #expect(client.remoteAddress == nil)
        await coturn.stop()
    }
}
