import RTCNet
import RTCTransport
import RTCWire
import SFU

/// One media worker of the server (docs/architecture.md, "Media workers"): an `SFUWorker` (its
/// own thread, event loop, UDP port, ICE-TCP listener, routers, transports, producers and
/// consumers) and the candidates that steer a client's datagrams to it. A channel lives on one
/// worker; every description for a participant of that channel announces this worker's
/// candidates only, so the kernel delivers the participant's datagrams to this worker's socket
/// and no datagram is ever handed from one worker to another.
final class MediaWorker: Sendable {
    let index: Int
    let sfu: SFUWorker
    /// Host candidates of this worker's port(s), put in every answer and offer of its channels.
    let candidates: [Candidate]

    /// Binds worker `index` on `address` (and ICE-TCP on `tcpBind`) and announces it at
    /// `announced` (the public IP, the bind address, or every interface's address).
    init(index: Int, bind address: SocketAddress, tcpBind: SocketAddress?, announced: [String],
         configuration: SFUConfiguration) throws(NetError) {
        self.index = index
        var configuration = configuration
        configuration.threadName = "srtc-media-\(index)"
        sfu = try SFUWorker(bind: address, tcpBind: tcpBind, configuration: configuration)
        candidates = Self.candidates(udp: sfu.port.localAddress, tcp: sfu.port.tcpAddress, announced: announced)
    }

    /// The UDP port of this worker.
    var udpPort: UInt16 { sfu.port.localAddress.port }
    /// The ICE-TCP port, when enabled.
    var tcpPort: UInt16? { sfu.port.tcpAddress?.port }
    /// The announced UDP addresses (`ip port`): a relay's uplink candidates.
    var udpAddresses: [String] { candidates.filter { $0.transport == "udp" }.map { "\($0.address) \($0.port)" } }

    /// What placement compares: forwarded packets per second (as published in the last second)
    /// and the live transports and routers.
    var load: MediaWorkerPlacement.Load {
        let counts = sfu.liveCounts
        return MediaWorkerPlacement.Load(forwardedPerSecond: sfu.metrics.workers.first?.forwardedPerSecond ?? 0,
                                         transports: counts.transports, routers: counts.routers)
    }

    /// A UDP host candidate per announced address, then (ICE-TCP, RFC 6544) a passive TCP one.
    static func candidates(udp: SocketAddress, tcp: SocketAddress?, announced: [String]) -> [Candidate] {
        let udpCandidates = announced.enumerated().map { i, address in
            Candidate(foundation: "\(i + 1)", component: 1, transport: "udp",
                      priority: Candidate.priority(typePreference: 126, localPreference: UInt32(65535 - i)),
                      address: address, port: udp.port, kind: .host)
        }
        let tcpCandidates: [Candidate] = tcp.map { listening in
            announced.enumerated().map { i, address -> Candidate in
                var candidate = ICECandidate.passiveTCP(address: listening, index: i).sdpCandidate
                candidate.foundation = "\(announced.count + i + 1)"
                candidate.address = address
                return candidate
            }
        } ?? []
        return udpCandidates + tcpCandidates
    }
}
