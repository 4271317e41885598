import Foundation
import SRTCLoad
import SRTCProtocol
import SRTCTestSupport

/// One call of the network lab's server comparison (`srtc-bench lab`, docs/benchmarks.md): a
/// server — ours (`srtc-server`) or Janus VideoRoom — in a lab namespace of its own, bound to the
/// namespace's address, and the load generator's media clients (`LoadPublisher`,
/// `LoadSubscriber`: the same for both servers, which is what makes the rows comparable) in this
/// namespace: the publisher on the link's own address, the subscriber on a second one whose
/// datagrams an nftables rule sends through the lab's userspace relay (`NetworkLab.addRelay`),
/// so loss toward the subscriber leaves the publisher's path alone. The subscriber keeps every
/// packet with its arrival time (`LoadRun(capture:)`) for the frame figures (`LabFrames`).
final class LabServerCall: Sendable {
    enum Server: String, Sendable {
        case ours
        case janus
    }

    /// Janus's media ports in the namespace (`rtp_port_range`): the relay listens for each.
    static let janusMediaPorts: ClosedRange<UInt16> = 20_000 ... 20_009

    let server: Server
    let lab: NetworkLab
    let link: NetworkLab.Link
    let relay: NetworkLab.Relay
    let run: LoadRun
    private let ours: SRTCTestSupport.ServerProcess?
    private let janus: JanusServer?

    private init(server: Server, lab: NetworkLab, link: NetworkLab.Link, relay: NetworkLab.Relay, run: LoadRun,
                 ours: SRTCTestSupport.ServerProcess?, janus: JanusServer?) {
        self.server = server
        self.lab = lab
        self.link = link
        self.relay = relay
        self.run = run
        self.ours = ours
        self.janus = janus
    }

    /// The subscriber's media client.
    var subscriber: LoadSubscriber? { run.subscribers.first }

    /// Starts `server` in a new lab namespace and sets up one publisher (simulcast VP8 640×360 +
    /// 160×90, Opus) and one subscriber (`camera_big`); returns once the subscriber's streams started.
    static func start(_ server: Server) async throws -> LabServerCall {
        let lab = NetworkLab()
        var ours: SRTCTestSupport.ServerProcess?
        var janus: JanusServer?
        var allowed: [String] = []
        do {
            let link = try lab.addNamespace()
            let subscriberAddress = try lab.addOutsideAddress(link)
            allowed = [link.insideAddress]
            LocalOnly.allowLab(allowed)
            let target: any LoadTarget
            let ports: [UInt16]
            switch server {
            case .ours:
                let process = SRTCTestSupport.ServerProcess(arguments: ["--app-id", TestServer.appId, "--app-key", TestServer.appKey],
                                                            namespace: link.namespace, host: link.insideAddress)
                ours = process
                try await process.start()
                ports = [process.udpPort]
                target = SRTCLoadTarget(baseURL: process.httpBase, appId: TestServer.appId, appKey: TestServer.appKey,
                                        bindAddress: link.outsideAddress)
            case .janus:
                let started = try await JanusServer.start(placement: .init(namespace: link.namespace, host: link.insideAddress,
                                                                           mediaPorts: janusMediaPorts))
                janus = started
                ports = Array(janusMediaPorts)
                target = JanusLoadTarget(baseURL: started.apiURL, bindAddress: link.outsideAddress)
            }
            let relay = try lab.addRelay(on: link, serverPorts: ports, source: subscriberAddress)
            try relay.shape(downlink: LabServerComparison.path, uplink: LabServerComparison.path)
            let scenario = LoadScenario(publishers: 1, subscribers: 1, simulcast: true, layer: TrackDescName.cameraBig)
            let run = try await LoadRun(scenario: scenario, target: target, capture: true, subscriberBindAddress: subscriberAddress)
            do {
                try await run.setUp()
            } catch {
                await run.tearDown()
                throw error
            }
            return LabServerCall(server: server, lab: lab, link: link, relay: relay, run: run, ours: ours, janus: janus)
        } catch {
            await ours?.stop()
            await janus?.shutDown()
            lab.remove()
            LocalOnly.forgetLab(allowed)
            throw error
        }
    }

    /// Leaves, stops the server and removes the lab.
    func end() async {
        await run.tearDown()
        await ours?.stop()
        await janus?.shutDown()
        lab.remove()
        LocalOnly.forgetLab([link.insideAddress])
    }

    /// The subscriber's per-stream counters now (empty before its transport exists).
    func streams() async -> [LoadReceivedStream.Statistics] {
        await subscriber?.snapshot(resetLatency: false).streams ?? []
    }

    /// RTP packets the subscriber received so far (an atomic: no hop to its thread).
    var packetsReceived: Int { subscriber?.packetsReceived.load(ordering: .relaxed) ?? 0 }

    /// The video packets the subscriber kept, with their arrival times.
    func videoPackets() async -> [LoadReceivedStream.CapturedPacket] {
        await subscriber?.capturedPackets(kind: .video).flatMap { $0 } ?? []
    }
}
