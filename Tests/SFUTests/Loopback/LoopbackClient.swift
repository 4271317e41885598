import SRTCTestSupport
import Foundation
import RTCNet
import RTCTransport
import RTCWire
import SFU
import Synchronization
import TestWait

/// A client `PeerTransport` (ICE controlling, DTLS client) with its own socket, connected to one
/// transport of an `SFUWorker` over loopback, recording what it receives.
final class LoopbackClient: PeerTransportDelegate, @unchecked Sendable {
    struct Log {
        var states: [PeerTransport.State] = []
        var rtp: [RTPPacket] = []
        var rtcp: [RTCPPacket] = []
    }

    let log = Mutex(Log())
    private(set) var transport: PeerTransport!

    /// Creates the server side on `worker`, then this client, and waits until both are connected.
    static func connect(to worker: SFUWorker, id: TransportID, router: RouterID, participant: ParticipantID,
                        certificate: DTLSCertificate, via relay: LossyRelay? = nil) async throws -> LoopbackClient {
        let client = LoopbackClient()
        let clientCertificate = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        try await worker.createTransport(id, router: router, participant: participant, parameters: PeerTransportParameters(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: certificate,
            remoteFingerprint: clientCertificate.fingerprint, dtlsRole: .server, connectTimeout: .seconds(10)))
        client.transport = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: relay?.address ?? worker.port.localAddress)], certificate: clientCertificate,
            remoteFingerprint: certificate.fingerprint, dtlsRole: .client, connectTimeout: .seconds(10)),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: client)
        guard await client.waitFor({ $0.states.last == .connected }) else {
            throw LoopbackError.notConnected(id.rawValue)
        }
        // The server side reports connected on its own thread; wait for it too.
        try await eventually("\(id) connected on the SFU") { (try? await worker.stats(of: id))?.state == .connected }
        return client
    }

    // MARK: - PeerTransportDelegate

    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        log.withLock { $0.states.append(state) }
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        guard let parsed = try? RTPPacket(parsing: UnsafeRawBufferPointer(packet)) else { return }
        log.withLock { $0.rtp.append(parsed) }
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        guard let packets = try? RTCPCompound.parse(UnsafeRawBufferPointer(packet)) else { return }
        log.withLock { $0.rtcp.append(contentsOf: packets) }
    }

    // MARK: - Sending and waiting

    /// Sends plain RTP packets on the client's I/O thread.
    func send(_ packets: [[UInt8]]) {
        transport.execute { t in for packet in packets { packet.withUnsafeBytes { _ = t.sendRTP($0) } } }
    }

    /// Sends one RTCP compound.
    func send(rtcp packets: [RTCPPacket]) {
        let bytes = RTCPCompound.serialize(packets)
        transport.execute { t in bytes.withUnsafeBytes { _ = t.sendRTCP($0) } }
    }

    /// RTP received with `ssrc`, in arrival order.
    func packets(ssrc: UInt32) -> [RTPPacket] {
        log.withLock { $0.rtp.filter { $0.ssrc == ssrc } }
    }

    /// Whether `condition` comes to hold on the log.
    func waitFor(_ condition: (Log) -> Bool) async -> Bool {
        await holds { log.withLock { condition($0) } }
    }

    func close() { transport?.close() }
}

enum LoopbackError: Error {
    case notConnected(String)
}

/// Collects the worker's events (delivered on its I/O thread).
final class EventCollector: SFUListener, @unchecked Sendable {
    let events = Mutex<[SFUEvent]>([])

    func sfuWorker(_ worker: SFUWorker, didEmit event: SFUEvent) {
        events.withLock { $0.append(event) }
    }

    func layerSwitches(of consumer: ConsumerID) -> [LayerSwitch] {
        events.withLock { events in
            events.compactMap { if case .layerSwitched(consumer, let change) = $0 { return change } else { return nil } }
        }
    }

    var speakerOrders: [[ParticipantID]] {
        events.withLock { events in
            events.compactMap { if case .activeSpeakers(_, let list) = $0 { return list.map(\.participant) } else { return nil } }
        }
    }
}
