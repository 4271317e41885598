import Foundation
import RTCNet
import RTCTransport
import SFU
import Synchronization
import TestWait
import Testing
@testable import SRTCServer

/// The server's media workers (docs/architecture.md, "Media workers"): each its own thread and
/// ports; a client reaches its transport's worker only through that worker's candidates.
@Suite(.serialized) struct MediaWorkersTests {
    @Test func theFlagAndTheEnvironmentSetTheWorkersAndTheDefaultIsOnePerCPU() throws {
        #expect(try ServerConfig.load(arguments: ["--media-workers", "3"], environment: [:]).media.effectiveWorkers == 3)
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_MEDIA_WORKERS": "2"]).media.effectiveWorkers == 2)
        let defaults = try ServerConfig.load(arguments: [], environment: [:])
        #expect(defaults.media.workers == 0 && defaults.media.effectiveWorkers == ProcessInfo.processInfo.activeProcessorCount)
        for bad in ["0", "-1", "x", "257"] {
            #expect(throws: ConfigError.self) { try ServerConfig.load(arguments: ["--media-workers", bad], environment: [:]) }
        }
    }

    @Test func theSubscriberBudgetIsTwoHundredByDefaultAndComesFromTheFlagOrTheEnvironment() throws {
        #expect(try ServerConfig.load(arguments: [], environment: [:]).media.workerSubscriberBudget == 200)
        #expect(try ServerConfig.load(arguments: ["--worker-subscriber-budget", "1"], environment: [:]).media.workerSubscriberBudget == 1)
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_WORKER_SUBSCRIBER_BUDGET": "0"]).media.workerSubscriberBudget == 0)
        for bad in ["-1", "x", "1000001"] {
            #expect(throws: ConfigError.self) { try ServerConfig.load(arguments: ["--worker-subscriber-budget", bad], environment: [:]) }
        }
    }

    @Test func workerIListensOnTheFirstPortPlusI() throws {
        // A free port's neighbour may be taken: a few tries.
        var made: (MediaServer, UInt16)?
        for _ in 0 ..< 5 where made == nil {
            let first = try freeLoopbackPort()
            if let server = try? MediaServer(bind: "127.0.0.1", port: first, workers: 2, publicIP: "192.0.2.1", qualityIntervalSeconds: 1) {
                made = (server, first)
            }
        }
        let (server, first) = try #require(made)
        defer { server.stop() }
        #expect(server.workers.map(\.udpPort) == [first, first + 1])
        // Each worker announces its own port only, at the public address.
        #expect(server.workers[1].candidates.map { "\($0.address) \($0.port)" } == ["192.0.2.1 \(first + 1)"])
        #expect(server.udpAddresses == ["192.0.2.1 \(first)", "192.0.2.1 \(first + 1)"])
    }

    @Test func aDatagramForAnotherWorkersTransportIsDroppedAndCounted() async throws {
        let server = try MediaServer(bind: "127.0.0.1", port: 0, workers: 2, publicIP: nil, qualityIntervalSeconds: 1)
        defer { server.stop() }
        let (a, b) = (server.workers[0], server.workers[1])
        let client = try await Client(on: a, server: server, name: "alice")
        // Alice's checks name her transport on A (USERNAME), but go to B's socket.
        let stray = try client.connect(to: [ICECandidate(address: b.sfu.port.localAddress)])
        defer { stray.transport.close() }
        try await eventually("B counts the datagrams it cannot route") {
            (b.sfu.metrics.workers.first?.unroutedDatagrams ?? 0) >= 3
        }
        #expect(b.sfu.liveCounts.transports == 0)
        #expect(!stray.states.contains(.connected))
        // A's transport never saw them, and still connects when the client comes the right way.
        #expect((a.sfu.metrics.workers.first?.unroutedDatagrams ?? 0) == 0)
        let right = try client.connect(to: [ICECandidate(address: a.sfu.port.localAddress)])
        defer { right.transport.close() }
        try await eventually("alice connects on A") { right.states.contains(.connected) }
        // B is unharmed: a transport of its own connects on its port.
        let bob = try await Client(on: b, server: server, name: "bob")
        let onB = try bob.connect(to: [ICECandidate(address: b.sfu.port.localAddress)])
        defer { onB.transport.close() }
        try await eventually("bob connects on B") { onB.states.contains(.connected) }
    }

    @Test func iceTCPReachesEachWorkerOnItsOwnListeningPort() async throws {
        let server = try MediaServer(bind: "127.0.0.1", port: 0, tcpPort: 0, workers: 2, publicIP: nil, qualityIntervalSeconds: 1)
        defer { server.stop() }
        let tcpPorts = server.workers.compactMap(\.tcpPort)
        #expect(tcpPorts.count == 2 && tcpPorts[0] != tcpPorts[1])
        for worker in server.workers {
            // The worker's announced candidates carry its own TCP port.
            let passive = try #require(worker.candidates.first { $0.transport.lowercased() == "tcp" })
            #expect(passive.port == worker.tcpPort)
            let client = try await Client(on: worker, server: server, name: "tcp\(worker.index)")
            let peer = try client.connect(to: [ICECandidate.passiveTCP(address: worker.sfu.port.tcpAddress!)])
            defer { peer.transport.close() }
            try await eventually("the client connects over ICE-TCP to worker \(worker.index)") { peer.states.contains(.connected) }
        }
    }

    /// A transport on `worker` (its own router) and what a client needs to reach it.
    struct Client {
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        let certificate: DTLSCertificate
        let serverFingerprint: DTLSFingerprint

        init(on worker: MediaWorker, server: MediaServer, name: String) async throws {
            certificate = try DTLSCertificate()
            serverFingerprint = server.certificate.fingerprint
            let parameters = PeerTransportParameters(iceRole: .lite, localICE: serverICE, remoteICE: clientICE,
                                                     certificate: server.certificate, remoteFingerprint: certificate.fingerprint,
                                                     dtlsRole: .server)
            let router = RouterID(name)
            try await worker.sfu.createRouter(router)
            try await worker.sfu.createTransport(TransportID("\(name)/pub"), router: router, participant: ParticipantID(name), parameters: parameters)
        }

        /// A controlling client checking `candidates` with this transport's credentials.
        func connect(to candidates: [ICECandidate]) throws -> StateLog {
            let log = StateLog()
            log.transport = try PeerTransport.client(PeerTransportParameters(
                iceRole: .controlling, localICE: clientICE, remoteICE: serverICE, remoteCandidates: candidates,
                certificate: certificate, remoteFingerprint: serverFingerprint, dtlsRole: .client),
                bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: log)
            return log
        }
    }

    /// Records a client transport's states (its I/O thread writes, the test reads).
    final class StateLog: PeerTransportDelegate, @unchecked Sendable {
        private let log = Mutex<[PeerTransport.State]>([])
        var transport: PeerTransport!
        var states: [PeerTransport.State] { log.withLock { $0 } }
        func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) { log.withLock { $0.append(state) } }
        func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {}
        func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {}
        func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {}
    }
}
