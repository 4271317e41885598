#if canImport(Glibc)
import Glibc
#endif
import RTCNet
import RTCWire
import Synchronization

/// The network lab's userspace link (docs/network.md, "The lab"): a UDP relay that sits in the
/// path between clients and the server's media ports and gives each direction what this kernel
/// cannot (no netem): random loss, loss in bursts, a fixed delay, jitter that reorders, a
/// bottleneck (`LinkShaper`). It runs as `srtc-lab-relay` in the server's namespace, where an
/// nftables `redirect` sends it what the clients send to the server's media ports
/// (`NetworkLab.addRelay`, `ClientServerLab.start_relay`); conntrack gives its answers the
/// server's address and port back, so the clients see the server's own candidate, and the server
/// sees each client flow from a port of the relay's, as behind a NAT.
///
/// One listening socket per server port; per client flow (listening port and client address) an
/// upstream socket to the server and a shaper per direction, seeded alike, so two clients that
/// get the same shape lose the same positions of their own streams (a comparison under the same
/// loss). The datagrams are relayed as they are: nothing is decrypted.
public final class LabRelay: Sendable {
    /// What the shapers of one direction did since the last `shape`, summed over the flows.
    public struct Counters: Sendable, Equatable, Codable {
        public var offered = 0
        public var randomlyLost = 0
        public var burstLost = 0
        public var queueDropped = 0
        public var lost: Int { randomlyLost + burstLost + queueDropped }
    }

    /// One client's flow through one listening socket.
    private final class Flow: Sendable {
        let client: SocketAddress
        let listener: UDPSocket
        let upstream: UDPSocket
        let loop: UDPReceiveLoop
        let shapers: Mutex<(down: LinkShaper?, up: LinkShaper?)>

        init(client: SocketAddress, listener: UDPSocket, upstream: UDPSocket, loop: UDPReceiveLoop, shapers: (LinkShaper?, LinkShaper?)) {
            self.client = client
            self.listener = listener
            self.upstream = upstream
            self.loop = loop
            self.shapers = Mutex(shapers)
        }
    }

    private struct Shapes: Sendable {
        var down: LinkShaper.Shape?
        var up: LinkShaper.Shape?
        var seed: UInt64 = 26
        /// When the shapes were set: every flow's fades count from it.
        var epoch: UInt64 = 0
    }

    /// Server port → the relay's listening port for it.
    public let ports: [UInt16: UInt16]
    private let server: String
    private let listeners: [(serverPort: UInt16, loop: UDPReceiveLoop)]
    private let flows = Mutex<[SocketAddress: [UInt16: Flow]]>([:])
    private let shapes = Mutex(Shapes())
    private let clock = SpeedTestClock()
    /// Where `traceDownlink` writes, nil: no trace.
    private let trace = Mutex<UnsafeMutablePointer<FILE>?>(nil)

    /// Listens on an ephemeral port of `bind` for each of `serverPorts` of `server` (an address of
    /// this namespace's).
    public init(server: String, serverPorts: [UInt16], bind: String = "0.0.0.0") throws {
        self.server = server
        var ports: [UInt16: UInt16] = [:]
        var listeners: [(UInt16, UDPReceiveLoop)] = []
        for serverPort in serverPorts {
            let socket = try UDPSocket(bind: SocketAddress(ip: bind, port: 0)!)
            ports[serverPort] = socket.localAddress.port
            listeners.append((serverPort, try UDPReceiveLoop(socket: socket, tickInterval: .milliseconds(100))))
        }
        self.ports = ports
        self.listeners = listeners
        for (serverPort, loop) in listeners {
            let socket = loop.socket
            loop.onDatagram = { [unowned self] bytes, source in self.fromClient(UnsafeRawBufferPointer(bytes), source, serverPort, socket) }
            loop.start(name: "lab-relay")
        }
    }

    deinit { stop() }

    /// Stops every socket's thread.
    public func stop() {
        for (_, loop) in listeners { loop.stop() }
        for flow in flows.withLock({ $0.values.flatMap(\.values) }) { flow.loop.stop() }
    }

    /// Shapes both directions of every flow from now on (nil: passed as it comes); what the old
    /// shapers still held goes out at once, and the counters start again.
    public func shape(downlink: LinkShaper.Shape?, uplink: LinkShaper.Shape?, seed: UInt64 = 26) {
        let all = shapes.withLock { s in
            s = Shapes(down: downlink, up: uplink, seed: seed, epoch: clock.now)
            return flows.withLock { $0.values.flatMap(\.values) }
        }
        for flow in all {
            let old = flow.shapers.withLock { shapers in
                defer { shapers = makeShapers() }
                return shapers
            }
            var down = old.down, up = old.up
            for d in down?.due(now: .max) ?? [] { _ = flow.listener.send(d.bytes, to: flow.client) }
            for d in up?.due(now: .max) ?? [] { _ = flow.upstream.send(d.bytes, to: upstreamTarget(flow)) }
        }
    }

    /// The counters since the last `shape`, per direction, and how many flows there are.
    public func counters() -> (downlink: Counters, uplink: Counters, flows: Int) {
        let all = flows.withLock { $0.values.flatMap(\.values) }
        var down = Counters(), up = Counters()
        for flow in all {
            flow.shapers.withLock { s in
                if let d = s.down { Self.add(d, to: &down) }
                if let u = s.up { Self.add(u, to: &up) }
            }
        }
        return (down, up, all.count)
    }

    /// Writes one line per datagram the server sends a client from now on (nil: stops), so a test
    /// can tell which packets of which stream the link lost: SRTP leaves the RTP header in clear
    /// (RFC 3711 §3.1), so without decrypting anything a line is
    /// `MS PORT K|D rtp PT SSRC SEQ TIMESTAMP BYTES`, `MS PORT K|D rtcp PT BYTES` or
    /// `MS PORT K|D other BYTES`: ms since the relay started, the client's port (one per browser
    /// window), kept or dropped by the shaper, and for RTP the header's fields (RFC 3550 §5.1).
    public func traceDownlink(to path: String?) {
        trace.withLock { t in
            if let old = t { fclose(old) }
            t = path.flatMap { fopen($0, "w") }
        }
    }

    // MARK: - Internals

    private func traceLine(_ bytes: UnsafeRawBufferPointer, port: UInt16, dropped: Bool, now: UInt64) {
        trace.withLock { t in
            guard let t else { return }
            var line = "\(now / 1000) \(port) \(dropped ? "D" : "K") "
            // RFC 7983 §7: 128…191 is RTP or RTCP; RFC 5761 §4: a second byte of 192…223 is RTCP.
            if bytes.count >= 12, bytes[0] >= 128, bytes[0] <= 191 {
                if bytes[1] >= 192, bytes[1] <= 223 {
                    line += "rtcp \(bytes[1]) \(bytes.count)"
                } else {
                    let seq = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
                    let ts = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
                    let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
                    line += "rtp \(bytes[1] & 0x7F) \(ssrc) \(seq) \(ts) \(bytes.count)"
                }
            } else {
                line += "other \(bytes.count)"
            }
            fputs(line + "\n", t)
        }
    }

    private static func add(_ shaper: LinkShaper, to counters: inout Counters) {
        counters.offered += shaper.offered
        counters.randomlyLost += shaper.randomlyLost
        counters.burstLost += shaper.burstLost
        counters.queueDropped += shaper.queueDropped
    }

    private func makeShapers() -> (down: LinkShaper?, up: LinkShaper?) {
        let s = shapes.withLock { $0 }
        return (s.down.map { LinkShaper($0, seed: s.seed, epoch: s.epoch) },
                s.up.map { LinkShaper($0, seed: s.seed ^ 0x5DEE_CE66_D1CE_4E5B, epoch: s.epoch) })
    }

    private func upstreamTarget(_ flow: Flow) -> SocketAddress {
        SocketAddress(ip: server, port: ports.first { $0.value == flow.listener.localAddress.port }!.key)!
    }

    /// A client's datagram: through its flow's uplink shaper to the server.
    private func fromClient(_ bytes: UnsafeRawBufferPointer, _ client: SocketAddress, _ serverPort: UInt16, _ listener: UDPSocket) {
        guard let flow = flow(client, serverPort, listener) else { return }
        let now = clock.now
        let passed: (shaped: Bool, bytes: [UInt8]?) = flow.shapers.withLock { s in
            s.up == nil ? (false, nil) : (true, s.up!.offer(bytes, now: now))
        }
        let target = SocketAddress(ip: server, port: serverPort)!
        if !passed.shaped { _ = flow.upstream.send(bytes, to: target) } else if let b = passed.bytes { _ = flow.upstream.send(b, to: target) }
    }

    /// The server's datagram on a flow's upstream socket: through the downlink shaper to the client.
    private func fromServer(_ bytes: UnsafeRawBufferPointer, _ flow: Flow) {
        let now = clock.now
        let passed: (shaped: Bool, bytes: [UInt8]?, dropped: Bool) = flow.shapers.withLock { s in
            guard s.down != nil else { return (false, nil, false) }
            let lost = s.down!.randomlyLost + s.down!.burstLost + s.down!.queueDropped
            let out = s.down!.offer(bytes, now: now)
            return (true, out, s.down!.randomlyLost + s.down!.burstLost + s.down!.queueDropped > lost)
        }
        traceLine(bytes, port: flow.client.port, dropped: passed.dropped, now: now)
        if !passed.shaped { _ = flow.listener.send(bytes, to: flow.client) } else if let b = passed.bytes { _ = flow.listener.send(b, to: flow.client) }
    }

    /// The flow of `client` through the listener for `serverPort`, made at its first datagram.
    private func flow(_ client: SocketAddress, _ serverPort: UInt16, _ listener: UDPSocket) -> Flow? {
        if let known = flows.withLock({ $0[client]?[serverPort] }) { return known }
        guard let upstream = try? UDPSocket(bind: SocketAddress(ip: server, port: 0)!),
              // 1 ms ticks: delayed datagrams leave close to their departure times.
              let loop = try? UDPReceiveLoop(socket: upstream, tickInterval: .milliseconds(1)) else { return nil }
        let flow = Flow(client: client, listener: listener, upstream: upstream, loop: loop, shapers: makeShapers())
        let server = SocketAddress(ip: server, port: serverPort)!
        loop.onDatagram = { [unowned self, unowned flow] bytes, source in
            guard source == server else { return }
            self.fromServer(UnsafeRawBufferPointer(bytes), flow)
        }
        loop.onTick = { [unowned self, unowned flow] _ in Self.releaseDue(flow, server: server, now: self.clock.now) }
        flows.withLock { $0[client, default: [:]][serverPort] = flow }
        loop.start(name: "lab-relay-flow")
        return flow
    }

    /// Sends a flow's shaped datagrams whose time has come, both ways.
    private static func releaseDue(_ flow: Flow, server: SocketAddress, now: UInt64) {
        let (down, up) = flow.shapers.withLock { s -> ([[UInt8]], [[UInt8]]) in
            (s.down?.due(now: now).map(\.bytes) ?? [], s.up?.due(now: now).map(\.bytes) ?? [])
        }
        for d in down { _ = flow.listener.send(d, to: flow.client) }
        for d in up { _ = flow.upstream.send(d, to: server) }
    }
}
