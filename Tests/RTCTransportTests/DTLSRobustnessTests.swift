import Foundation
import Synchronization
import Testing
import TestWait
import RTCNet
@testable import RTCTransport

/// Datagrams an attacker (or a broken peer) sends to a transport whose ICE has succeeded but whose
/// DTLS handshake has not: each once made the server give up the transport.
enum DTLSJunk {
    /// A DTLS 1.2 record header (RFC 6347 §4.1): type, version 1.2, epoch 0, sequence, length.
    static func record(_ type: UInt8, _ body: [UInt8], epoch: UInt16 = 0) -> [UInt8] {
        [type, 0xFE, 0xFD, UInt8(epoch >> 8), UInt8(epoch & 0xFF), 0, 0, 0, 0, 0, 7, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// A handshake message header (RFC 6347 §4.2.2) with the whole message in one fragment.
    static func handshake(_ type: UInt8, _ body: [UInt8], claimedLength: Int? = nil) -> [UInt8] {
        let length = claimedLength ?? body.count
        func u24(_ v: Int) -> [UInt8] { [UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return [type] + u24(length) + [0, 0] + u24(0) + u24(body.count) + body
    }

    /// A ClientHello whose session_id claims 0xAB bytes: garbage after the random.
    static let garbageClientHello = record(22, handshake(1, [0xFE, 0xFD] + Array(repeating: 0xAB, count: 60)))
    /// A well-formed ClientHello offering only TLS_RSA_WITH_AES_128_CBC_SHA: parses, but no server of ours accepts it.
    static let unacceptableClientHello = record(22, handshake(1, [0xFE, 0xFD] + Array(repeating: 0x11, count: 32)
                                                                + [0]              // session_id
                                                                + [0]              // cookie
                                                                + [0, 2, 0x00, 0x2F] // cipher_suites
                                                                + [1, 0]))         // compression: null
    /// A fatal handshake_failure alert in plaintext (RFC 5246 §7.2): unauthenticated.
    static let plaintextAlert = record(21, [2, 40])
    /// A ClientHello header claiming a message of 2^24 − 1 bytes.
    static let hugeHandshake = record(22, handshake(1, [], claimedLength: (1 << 24) - 1))

    static let all: [(String, [UInt8])] = [("garbage ClientHello", garbageClientHello), ("unacceptable ClientHello", unacceptableClientHello),
                                           ("plaintext alert", plaintextAlert), ("2^24-1 handshake length", hugeHandshake)]
}

@Suite struct DTLSRobustnessTests {
    @Test(arguments: DTLSJunk.all.map(\.0))
    func aStrayDatagramBeforeTheClientHelloDoesNotEndTheServer(_ name: String) throws {
        let junk = try #require(DTLSJunk.all.first { $0.0 == name }?.1)
        var pair = try DTLSPair()
        #expect(pair.server.handle(junk).event == nil)
        #expect(pair.server.state != .failed)
        pair.run()
        #expect(pair.serverEvents == [.connected(.aeadAES128GCM)])
        #expect(pair.clientEvents == [.connected(.aeadAES128GCM)])
    }

    @Test(arguments: DTLSJunk.all.map(\.0))
    func aStrayDatagramInTheMiddleOfTheHandshakeIsIgnored(_ name: String) throws {
        let junk = try #require(DTLSJunk.all.first { $0.0 == name }?.1)
        var pair = try DTLSPair()
        // ClientHello → server; the server's flight is queued for the client; then the junk arrives.
        pair.absorb(pair.client.start(), fromClient: true)
        let hello = pair.toServer; pair.toServer = []
        for d in hello { pair.absorb(pair.server.handle(d), fromClient: false) }
        #expect(!pair.toClient.isEmpty)
        #expect(pair.server.handle(junk).event == nil)
        #expect(pair.client.handle(DTLSJunk.plaintextAlert).event == nil)
        pair.run()
        #expect(pair.serverEvents == [.connected(.aeadAES128GCM)])
        #expect(pair.clientEvents == [.connected(.aeadAES128GCM)])
    }

    @Test func theRecordFilterNamesWhatItDrops() {
        func check(_ bytes: [UInt8], _ role: DTLSEndpoint.Role = .server) -> DTLSRecordFilter.Rejection? {
            bytes.withUnsafeBytes { DTLSRecordFilter.check($0, receivedBy: role) }
        }
        #expect(check(DTLSJunk.garbageClientHello) == .malformedHello)
        #expect(check(DTLSJunk.unacceptableClientHello) == nil)  // well formed: OpenSSL decides
        #expect(check(DTLSJunk.plaintextAlert) == .unauthenticatedAlert)
        #expect(check(DTLSJunk.hugeHandshake) == .handshakeTooLong(type: 1, length: (1 << 24) - 1))
        #expect(check(Array(DTLSJunk.plaintextAlert.prefix(12))) == .truncatedRecord)
        #expect(check(DTLSJunk.record(22, [1, 0, 0])) == .truncatedHandshake)
        #expect(check(DTLSJunk.record(23, [1, 2, 3])) == .plaintextApplicationData)
        #expect(check(DTLSJunk.record(20, [2])) == .malformedChangeCipherSpec)
        #expect(check(DTLSJunk.record(20, [1])) == nil)
        #expect(check(DTLSJunk.record(99, [1])) == .unknownContentType(99))
        #expect(check([22, 0x03, 0x03] + Array(DTLSJunk.plaintextAlert.dropFirst(3))) == .unknownVersion(0x0303))
        // A ServerHello is what a client expects, never a server.
        #expect(check(DTLSJunk.record(22, DTLSJunk.handshake(2, [])), .server) == .unexpectedHandshakeType(2))
        // A fragment past the end of its message.
        #expect(check(DTLSJunk.record(22, [1, 0, 0, 4, 0, 0, 0, 0, 0, 3, 0, 0, 2, 0xAA, 0xBB])) == .fragmentOutOfRange)
        // Records under the negotiated keys (epoch 1) are OpenSSL's to authenticate, alerts included.
        #expect(check(DTLSJunk.record(21, Array(repeating: 0x5A, count: 40), epoch: 1)) == nil)
    }

    @Test func realHandshakeFlightsPassTheFilter() throws {
        var pair = try DTLSPair()
        var seen = 0
        pair.absorb(pair.client.start(), fromClient: true)
        for _ in 0..<20 {
            let forServer = pair.toServer; pair.toServer = []
            for d in forServer {
                #expect(d.withUnsafeBytes { DTLSRecordFilter.check($0, receivedBy: .server) } == nil)
                seen += 1
                pair.absorb(pair.server.handle(d), fromClient: false)
            }
            let forClient = pair.toClient; pair.toClient = []
            for d in forClient {
                #expect(d.withUnsafeBytes { DTLSRecordFilter.check($0, receivedBy: .client) } == nil)
                seen += 1
                pair.absorb(pair.client.handle(d), fromClient: true)
            }
        }
        #expect(seen >= 4)
        #expect(pair.server.state == .connected && pair.client.state == .connected)
        #expect(pair.server.ignoredDatagrams == 0 && pair.client.ignoredDatagrams == 0)
    }

    /// The finding itself, end to end: ICE has succeeded, the junk arrives from the address ICE
    /// validated before the client's ClientHello does, and the transport still connects.
    @Test(arguments: DTLSJunk.all.map(\.0))
    func aServerTransportSurvivesJunkAfterICE(_ name: String) async throws {
        let junk = try #require(DTLSJunk.all.first { $0.0 == name }?.1)
        let port = try MediaPort(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let relay = try HoldingRelay(server: port.localAddress)
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverDelegate = RecordingDelegate(), clientDelegate = RecordingDelegate()
        let server = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: serverCert,
            remoteFingerprint: clientCert.fingerprint, dtlsRole: .server, connectTimeout: .seconds(20)), delegate: serverDelegate)
        relay.holdDTLS.withLock { $0 = true }
        let client = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE, remoteCandidates: [ICECandidate(address: relay.address)],
            certificate: clientCert, remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(20)),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: clientDelegate)
        defer {
            client.close()
            server.close()
            port.stop()
            relay.stop()
        }
        // ICE succeeded once the client sends its ClientHello (held back here).
        try await eventually("the ClientHello held back") { relay.heldDatagrams.withLock { $0 } > 0 }
        relay.inject(junk)
        relay.holdDTLS.withLock { $0 = false }
        // The client's retransmitted ClientHello finds the server still waiting for it.
        #expect(await serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await clientDelegate.waitFor { $0.states.last == .connected })
        #expect(!serverDelegate.log.withLock { $0.states }.contains(.failed))
    }
}

/// A UDP relay between a client and the server's port that can hold back the client's DTLS and
/// send the test's own datagrams from the address the server knows the client by.
final class HoldingRelay: @unchecked Sendable {
    private let socket: UDPSocket
    private let loop: UDPReceiveLoop
    private let server: SocketAddress
    private let client = Mutex<SocketAddress?>(nil)
    let holdDTLS = Mutex(false)
    let heldDatagrams = Mutex(0)

    init(server: SocketAddress) throws {
        self.server = server
        socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        loop = try UDPReceiveLoop(socket: socket)
        loop.onDatagram = { [unowned self] bytes, source in self.forward(UnsafeRawBufferPointer(bytes), from: source) }
        loop.start(name: "test-holding-relay")
    }

    var address: SocketAddress { socket.localAddress }

    func inject(_ bytes: [UInt8]) { _ = socket.send(bytes, to: server) }

    func stop() { loop.stop() }

    private func forward(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        if source == server {
            if let destination = client.withLock({ $0 }) { _ = socket.send(bytes, to: destination) }
            return
        }
        client.withLock { $0 = source }
        if PacketKind.classify(bytes) == .dtls, holdDTLS.withLock({ $0 }) {
            heldDatagrams.withLock { $0 += 1 }
            return
        }
        _ = socket.send(bytes, to: server)
    }
}
