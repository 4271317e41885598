import TestWait
import Testing
import RTCNet
import RTCWire
@testable import RTCTransport

/// ICE restarts of a server transport (RFC 8445 §9) whose DTLS never completed: there is no
/// association to keep, so the restart starts DTLS over and a new client transport connects.
@Suite(.serialized) struct PeerTransportRestartTests {
    /// An ICE-lite DTLS server transport with data channels; as the SFU does, the negotiated
    /// channel is opened at setup and waits for the association.
    private func serverTransport(on port: MediaPort, local: ICECredentials, remote: ICECredentials, certificate: DTLSCertificate,
                                 peer: DTLSCertificate, timeout: Duration, delegate: RecordingDelegate) throws -> PeerTransport {
        let server = try port.makeTransport(PeerTransportParameters(
            iceRole: .lite, localICE: local, remoteICE: remote, certificate: certificate,
            remoteFingerprint: peer.fingerprint, dtlsRole: .server, connectTimeout: timeout, sctp: SCTPParameters()),
            delegate: delegate)
        server.execute { t in _ = t.openDataChannel(label: "data", negotiatedID: 1) }
        return server
    }

    @Test func aServerTransportThatFailedMidHandshakeComesBackWithANewClientAfterAnICERestart() async throws {
        let port = try MediaPort(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { port.stop() }
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate(), stranger = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverDelegate = RecordingDelegate()
        let sctp = SCTPParameters()
        let server = try serverTransport(on: port, local: serverICE, remote: clientICE, certificate: serverCert,
                                         peer: clientCert, timeout: .seconds(3), delegate: serverDelegate)

        // The first client gives up mid-handshake: it rejects the server's certificate after the
        // server answered its ClientHello (its alert is plaintext, which the server may not trust).
        let first = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
            remoteFingerprint: stranger.fingerprint, dtlsRole: .client, connectTimeout: .seconds(3), sctp: sctp),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: RecordingDelegate())
        #expect(await serverDelegate.waitFor { $0.states.last == .failed })
        first.close()
        #expect(server.state == .failed)
        #expect(!serverDelegate.log.withLock { $0.states }.contains(.connected))

        // The restart with new credentials revives it; a new client transport (new DTLS) connects.
        let serverICE2 = ICECredentials.random(), clientICE2 = ICECredentials.random()
        server.restartICE(local: serverICE2, remote: clientICE2)
        let clientDelegate = RecordingDelegate()
        let second = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE2, remoteICE: serverICE2,
            remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
            remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(10), sctp: sctp),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: clientDelegate)
        defer { second.close(); server.close() }
        #expect(await serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await clientDelegate.waitFor { $0.states.last == .connected })
        #expect(Array(serverDelegate.log.withLock { $0.states }.drop { $0 != .failed }) == [.failed, .checking, .connected])
        #expect(server.remoteAddress == second.localAddress)

        // SRTP both ways.
        let packets = (0..<10).map { SRTPTests.rtp(seq: UInt16(500 + $0), ssrc: 0x4444) }
        second.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await serverDelegate.waitFor { $0.rtp == packets })
        let back = (0..<5).map { SRTPTests.rtp(seq: UInt16(90 + $0), ssrc: 0x5555) }
        server.execute { t in for p in back { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await clientDelegate.waitFor { $0.rtp == back })

        // The channel opened at setup opens on the new association.
        second.execute { t in _ = t.openDataChannel(label: "data", negotiatedID: 1) }
        #expect(await serverDelegate.waitFor { $0.dataChannel.contains { if case .opened(let info) = $0 { info.id == 1 } else { false } } })
        #expect(await clientDelegate.waitFor { $0.dataChannel.contains { if case .opened(let info) = $0 { info.id == 1 } else { false } } })
        let message: [UInt8] = Array("after the restart".utf8)
        second.execute { t in message.withUnsafeBytes { try? t.sendData($0, on: 1) } }
        #expect(await serverDelegate.waitFor { $0.dataChannel.contains(.message(id: 1, data: message, binary: true)) })
    }

    /// A browser whose address changed makes a new peer connection (same certificate) and offers
    /// it as the ICE restart: after the restart, its ClientHello at epoch 0 begins a new
    /// association on the connected transport (RFC 6347 §4.2.8), which takes new keys and opens
    /// the negotiated channels again; the transport never leaves `.connected`.
    @Test func aNewClientAfterAnICERestartBeginsANewAssociationOnAConnectedTransport() async throws {
        let port = try MediaPort(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { port.stop() }
        let serverCert = try DTLSCertificate(), clientCert = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let serverDelegate = RecordingDelegate()
        let sctp = SCTPParameters()
        let server = try serverTransport(on: port, local: serverICE, remote: clientICE, certificate: serverCert,
                                         peer: clientCert, timeout: .seconds(5), delegate: serverDelegate)
        defer { server.close() }
        func client(_ local: ICECredentials, _ remote: ICECredentials, _ delegate: RecordingDelegate) throws -> PeerTransport {
            try PeerTransport.client(PeerTransportParameters(
                iceRole: .controlling, localICE: local, remoteICE: remote,
                remoteCandidates: [ICECandidate(address: port.localAddress)], certificate: clientCert,
                remoteFingerprint: serverCert.fingerprint, dtlsRole: .client, connectTimeout: .seconds(5), sctp: sctp),
                bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: delegate)
        }
        let first = try client(clientICE, serverICE, RecordingDelegate())
        first.execute { t in _ = t.openDataChannel(label: "data", negotiatedID: 1) }
        #expect(await serverDelegate.waitFor { $0.dataChannel.contains { if case .opened(let info) = $0 { info.id == 1 } else { false } } })
        let before = SRTPTests.rtp(seq: 10, ssrc: 0x1111)
        first.execute { t in before.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await serverDelegate.waitFor { $0.rtp == [before] })

        // The restart's credentials go to a new connection, from a new address; the old one stays
        // open until then (as the web SDK keeps it: its close_notify would end the transport
        // while its address is still the selected one).
        defer { first.close() }
        let serverICE2 = ICECredentials.random(), clientICE2 = ICECredentials.random()
        server.restartICE(local: serverICE2, remote: clientICE2)
        let clientDelegate = RecordingDelegate()
        let second = try client(clientICE2, serverICE2, clientDelegate)
        defer { second.close() }
        #expect(await clientDelegate.waitFor { $0.states.last == .connected })
        #expect(server.remoteAddress == second.localAddress)
        // New keys both ways, and a move reported once they are in place (the SFU's key frames).
        let packets = (0..<5).map { SRTPTests.rtp(seq: UInt16(700 + $0), ssrc: 0x2222) }
        second.execute { t in for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await serverDelegate.waitFor { $0.rtp == [before] + packets })
        let back = (0..<5).map { SRTPTests.rtp(seq: UInt16(40 + $0), ssrc: 0x3333) }
        server.execute { t in for p in back { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await clientDelegate.waitFor { $0.rtp == back })
        #expect(await serverDelegate.waitFor { $0.moves.count >= 1 })
        #expect(serverDelegate.log.withLock { $0.states } == [.checking, .connected])
        // The negotiated channel opens on the new association.
        second.execute { t in _ = t.openDataChannel(label: "data", negotiatedID: 1) }
        #expect(await clientDelegate.waitFor { $0.dataChannel.contains { if case .opened(let info) = $0 { info.id == 1 } else { false } } })
        let message: [UInt8] = Array("from the new connection".utf8)
        second.execute { t in message.withUnsafeBytes { try? t.sendData($0, on: 1) } }
        #expect(await serverDelegate.waitFor { $0.dataChannel.contains(.message(id: 1, data: message, binary: true)) })
    }

    @Test func anICERestartOfAConnectedTransportKeepsItsDTLSAndSRTP() async throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        peers.server.restartICE(local: serverICE, remote: clientICE)
        peers.client.restartICE(local: clientICE, remote: serverICE)
        // The client's restarted checks reach the server under its new ufrag; the keys are the same.
        #expect(await holds { await withCheckedContinuation { c in peers.server.execute { c.resume(returning: $0.localICE.ufrag == serverICE.ufrag) } } })
        let packet = SRTPTests.rtp(seq: 3, ssrc: 0x6161)
        peers.client.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await peers.serverDelegate.waitFor { $0.rtp == [packet] })
        #expect(peers.serverDelegate.log.withLock { $0.states } .filter { $0 == .connected }.count == 1)
        // The restart's first path is reported as a move, though the address is the same: the
        // SFU asks for key frames then (what was sent while the path was broken was lost).
        #expect(await peers.serverDelegate.waitFor { $0.moves.count == 1 })
        let moves = peers.serverDelegate.log.withLock { $0.moves }
        #expect(moves.count == 1 && moves.allSatisfy { $0.0 == $0.1 })
        let restarted = await withCheckedContinuation { c in peers.server.execute { c.resume(returning: $0.dtls.state) } }
        #expect(restarted == .connected)
    }
}
