import Testing
import TestWait
import Foundation
@testable import RTCTransport
import TestRandom

/// Two endpoints in memory: datagrams one emits are handed to the other.
struct DTLSPair {
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    var clientEvents: [DTLSEndpoint.Event] = []
    var serverEvents: [DTLSEndpoint.Event] = []
    var toServer: [[UInt8]] = []
    var toClient: [[UInt8]] = []

    init(clientProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80],
         serverProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80],
         serverSeesFingerprint: DTLSFingerprint? = nil) throws {
        let clientCert = try DTLSCertificate()
        let serverCert = try DTLSCertificate()
        client = try DTLSEndpoint(role: .client, certificate: clientCert, remoteFingerprint: serverCert.fingerprint, profiles: clientProfiles)
        server = try DTLSEndpoint(role: .server, certificate: serverCert,
                                  remoteFingerprint: serverSeesFingerprint ?? clientCert.fingerprint, profiles: serverProfiles)
    }

    mutating func absorb(_ output: DTLSEndpoint.Output, fromClient: Bool) {
        if fromClient {
            toServer += output.datagrams
            if let e = output.event { clientEvents.append(e) }
        } else {
            toClient += output.datagrams
            if let e = output.event { serverEvents.append(e) }
        }
    }

    /// Delivers queued datagrams until both sides are quiet.
    mutating func run(dropFirstServerFlight: Bool = false) {
        absorb(client.start(), fromClient: true)
        absorb(server.start(), fromClient: false)
        var dropped = false
        for _ in 0..<50 {
            if toServer.isEmpty && toClient.isEmpty { break }
            let forServer = toServer; toServer = []
            for d in forServer { absorb(server.handle(d), fromClient: false) }
            if dropFirstServerFlight && !dropped && !toClient.isEmpty { toClient = []; dropped = true }
            let forClient = toClient; toClient = []
            for d in forClient { absorb(client.handle(d), fromClient: true) }
        }
    }
}

@Suite struct DTLSTests {
    @Test func certificateFingerprintIsSHA256InSDPForm() throws {
        let cert = try DTLSCertificate()
        #expect(cert.fingerprint.algorithm == "sha-256")
        #expect(cert.fingerprint.bytes.count == 32)
        let text = cert.fingerprint.hexString
        #expect(text.count == 32 * 3 - 1)
        #expect(text.allSatisfy { $0 == ":" || $0.isHexDigit && !$0.isLowercase })
        #expect(try DTLSFingerprint(sdpValue: cert.fingerprint.sdpValue) == cert.fingerprint)
    }

    @Test func fingerprintParsingRejectsJunk() {
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sdpValue: "md5 AB:CD") }
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sdpValue: "sha-256 AB:XY") }
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sdpValue: "sha-256") }
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sdpValue: "sha-256 ABC:DE") }
    }

    @Test func handshakeNegotiatesGCMAndBothSidesExportTheSameKeys() throws {
        var pair = try DTLSPair()
        pair.run()
        #expect(pair.clientEvents == [.connected(.aeadAES128GCM)])
        #expect(pair.serverEvents == [.connected(.aeadAES128GCM)])
        #expect(pair.client.keyingMaterial != nil)
        #expect(pair.client.keyingMaterial == pair.server.keyingMaterial)
        #expect(pair.client.keyingMaterial?.count == 2 * 28)
        // The SRTP contexts built from them interoperate.
        let client = try #require(try pair.client.makeSRTPContext())
        let server = try #require(try pair.server.makeSRTPContext())
        let packet = SRTPTests.rtp(seq: 5)
        #expect(try SRTPTests.unprotect(server.inbound, try SRTPTests.protect(client.outbound, packet)) == packet)
    }

    @Test func handshakeFallsBackToAESCMWhenThatIsAllTheClientOffers() throws {
        var pair = try DTLSPair(clientProfiles: [.aes128CMSHA1_80])
        pair.run()
        #expect(pair.clientEvents == [.connected(.aes128CMSHA1_80)])
        #expect(pair.serverEvents == [.connected(.aes128CMSHA1_80)])
        #expect(pair.server.keyingMaterial?.count == 2 * 30)
    }

    @Test func wrongFingerprintFailsTheHandshake() throws {
        let stranger = try DTLSCertificate()
        var pair = try DTLSPair(serverSeesFingerprint: stranger.fingerprint)
        pair.run()
        #expect(pair.serverEvents == [.failed(.fingerprintMismatch)])
        #expect(pair.server.state == .failed)
        #expect(pair.client.state != .connected || pair.clientEvents.contains { if case .failed = $0 { true } else { false } })
        #expect(pair.server.keyingMaterial == nil)
    }

    @Test func aServerStartsOverBeforeItsHandshakeCompletedAndANewClientConnects() throws {
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate(), stranger = try DTLSCertificate()
        let server = try DTLSEndpoint(role: .server, certificate: serverCert, remoteFingerprint: clientCert.fingerprint)
        /// Runs `client` against the server until both are quiet; returns the server's events.
        func handshake(_ client: DTLSEndpoint) -> [DTLSEndpoint.Event] {
            var events: [DTLSEndpoint.Event] = []
            var toServer = client.start().datagrams
            for _ in 0..<20 where !toServer.isEmpty {
                var toClient: [[UInt8]] = []
                for d in toServer {
                    let output = server.handle(d)
                    toClient += output.datagrams
                    if let e = output.event { events.append(e) }
                }
                toServer = toClient.flatMap { client.handle($0).datagrams }
            }
            return events
        }
        // A peer with the wrong certificate fails the handshake (after the server answered it).
        let impostor = try DTLSEndpoint(role: .client, certificate: stranger, remoteFingerprint: serverCert.fingerprint)
        #expect(handshake(impostor) == [.failed(.fingerprintMismatch)])
        #expect(server.state == .failed)
        // Starting over forgets that handshake; the expected fingerprint stays.
        #expect(server.restart())
        #expect(server.state == .new)
        #expect(server.ignoredDatagrams == 0)
        let client = try DTLSEndpoint(role: .client, certificate: clientCert, remoteFingerprint: serverCert.fingerprint)
        #expect(handshake(client) == [.connected(.aeadAES128GCM)])
        #expect(client.state == .connected)
        #expect(client.keyingMaterial == server.keyingMaterial)
        // An established association is never started over.
        #expect(!server.restart())
        #expect(server.state == .connected)
        #expect(server.keyingMaterial == client.keyingMaterial)
    }

    @Test func closeNotifyReachesThePeer() throws {
        var pair = try DTLSPair()
        pair.run()
        let bye = pair.client.close()
        #expect(!bye.datagrams.isEmpty)
        #expect(pair.client.state == .closed)
        var events: [DTLSEndpoint.Event] = []
        for d in bye.datagrams { if let e = pair.server.handle(d).event { events.append(e) } }
        #expect(events == [.closed])
        #expect(pair.server.state == .closed)
    }

    @Test func lostFlightIsRetransmittedAfterTheTimer() async throws {
        var pair = try DTLSPair()
        pair.run(dropFirstServerFlight: true)
        #expect(pair.client.state == .handshaking)
        let wait = try #require(pair.client.timeUntilRetransmit)
        #expect(wait <= .seconds(1))
        // OpenSSL's timer runs on the wall clock: wait until it says the flight is due.
        try await eventually("the retransmission timer due") { pair.client.timeUntilRetransmit == .zero }
        let retransmitted = pair.client.handleTimeout()
        #expect(!retransmitted.datagrams.isEmpty)
        pair.toServer = retransmitted.datagrams
        // On a loaded machine either side's own timer may also come due before the flights get
        // through (the server's, armed when its dropped flight left); the pump serves timers as an
        // I/O loop does, instead of 20 rounds that a late timer could leave half-way.
        try await eventually(timeout: 10, "both sides connected") {
            for (endpoint, fromClient) in [(pair.server, false), (pair.client, true)] where endpoint.timeUntilRetransmit == .zero {
                pair.absorb(endpoint.handleTimeout(), fromClient: fromClient)
            }
            let s = pair.toServer; pair.toServer = []
            for d in s { pair.absorb(pair.server.handle(d), fromClient: false) }
            let c = pair.toClient; pair.toClient = []
            for d in c { pair.absorb(pair.client.handle(d), fromClient: true) }
            return pair.client.state == .connected && pair.server.state == .connected
        }
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
    }

    @Test func randomDatagramsIntoAServerNeverCrash() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200 {
            let server = try DTLSEndpoint(role: .server, certificate: Self.sharedCert, remoteFingerprint: Self.sharedCert.fingerprint)
            for _ in 0..<4 {
                let count = Int(rng.next() % 300)
                var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                // Often look like a DTLS 1.2 handshake record so OpenSSL parses deeper.
                if count > 13, rng.next() % 2 == 0 { bytes[0] = 22; bytes[1] = 0xfe; bytes[2] = 0xfd }
                _ = server.handle(bytes)
            }
            #expect(server.state != .connected)
        }
    }

    static let sharedCert = try! DTLSCertificate()
}

