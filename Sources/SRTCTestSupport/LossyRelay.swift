import RTCNet
import RTCTransport
import RTCWire
import Synchronization

/// A UDP relay between one client and the server's media port that drops chosen server→client
/// datagrams before they reach the client's SRTP, as a lossy network does (a packet dropped after
/// decryption would make its retransmission look like a replay). `shape` adds seeded random loss
/// and a rate-limited bottleneck to either direction (`LinkShaper`).
public final class LossyRelay: Sendable {
    /// The two shaped directions (client→server is the uplink).
    public struct Shapers: Sendable {
        public var uplink: LinkShaper?
        public var downlink: LinkShaper?
    }

    private let socket: UDPSocket
    private let loop: UDPReceiveLoop
    private let server: SocketAddress
    private let client = Mutex<SocketAddress?>(nil)
    /// Decides from a server→client datagram (still SRTP-protected; its RTP header is clear) whether to drop it.
    public let drop = CallbackSlot<@Sendable (UnsafeRawBufferPointer) -> Bool>()
    /// The dropped datagrams.
    public let dropped = Mutex<[[UInt8]]>([])
    /// Drops everything both ways, as a network path that went away.
    public let broken = Mutex(false)
    /// Shaping per direction (read them for the counters).
    public let shapers = Mutex(Shapers())
    private let clock = SpeedTestClock()
    /// After `rebind()`: the socket that talks to the server (a NAT's new mapping); the first
    /// socket then only talks to the client.
    private let upstream = Mutex<(socket: UDPSocket, loop: UDPReceiveLoop)?>(nil)
    /// Server datagrams that still came to the old mapping after `rebind()` (a NAT drops them).
    public let staleMappingDrops = Atomic(0)

    public init(server: SocketAddress) throws {
        self.server = server
        socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        // 1 ms ticks: a shaped bottleneck releases datagrams close to their departure times.
        loop = try UDPReceiveLoop(socket: socket, tickInterval: .milliseconds(1))
        loop.onDatagram = { [unowned self] bytes, source in self.forward(UnsafeRawBufferPointer(bytes), from: source) }
        loop.onTick = { [unowned self] _ in self.releaseDue() }
        loop.start(name: "test-relay")
    }

    /// The address the client should send to.
    public var address: SocketAddress { socket.localAddress }

    public func stop() {
        loop.stop()
        upstream.withLock { $0?.loop.stop() }
    }

    /// Acts as a NAT that rebinds the client's mapping: from now on the client's datagrams reach
    /// the server from a new port, and what the server still sends to the old one is dropped.
    /// The client's side of the relay does not change (the client sees nothing).
    public func rebind() throws {
        let socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let loop = try UDPReceiveLoop(socket: socket, tickInterval: .milliseconds(1))
        loop.onDatagram = { [unowned self] bytes, source in
            guard source == self.server else { return }
            self.forward(UnsafeRawBufferPointer(bytes), from: source, rebound: true)
        }
        loop.start(name: "test-relay-rebound")
        let previous = upstream.withLock { old in
            defer { old = (socket, loop) }
            return old
        }
        previous?.loop.stop()
    }

    /// The socket datagrams to the server leave from.
    private var serverSide: UDPSocket { upstream.withLock { $0?.socket } ?? socket }

    /// Shapes each direction from now on (nil: unshaped); `seed` makes the random loss replay.
    public func shape(uplink: LinkShaper.Shape?, downlink: LinkShaper.Shape?, seed: UInt64) {
        shapers.withLock {
            $0.uplink = uplink.map { LinkShaper($0, seed: seed) }
            $0.downlink = downlink.map { LinkShaper($0, seed: seed ^ 0x5DEE_CE66_D1CE_4E5B) }
        }
    }

    /// Sends through `shaper` (or at once when the direction is unshaped).
    private func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress, uplink: Bool) {
        let now = clock.now
        let passed: (shaped: Bool, bytes: [UInt8]?) = shapers.withLock { s in
            if uplink, s.uplink != nil { return (true, s.uplink!.offer(bytes, now: now)) }
            if !uplink, s.downlink != nil { return (true, s.downlink!.offer(bytes, now: now)) }
            return (false, nil)
        }
        let out = uplink ? serverSide : socket
        if !passed.shaped {
            _ = out.send(bytes, to: destination)
        } else if let shaped = passed.bytes {
            _ = out.send(shaped, to: destination)
        }
    }

    /// Sends the shaped datagrams whose time has come.
    private func releaseDue() {
        let now = clock.now
        let (up, down) = shapers.withLock { s -> ([[UInt8]], [[UInt8]]) in
            (s.uplink?.due(now: now).map(\.bytes) ?? [], s.downlink?.due(now: now).map(\.bytes) ?? [])
        }
        let toServer = serverSide
        for d in up { _ = toServer.send(d, to: server) }
        if let client = client.withLock({ $0 }) { for d in down { _ = socket.send(d, to: client) } }
    }

    /// A datagram that came to the first socket, or (`rebound`) to the one `rebind()` opened.
    private func forward(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress, rebound: Bool = false) {
        guard !broken.withLock({ $0 }) else { return }
        if source == server {
            if !rebound, upstream.withLock({ $0 != nil }) {
                staleMappingDrops.add(1, ordering: .relaxed)
                return
            }
            guard let destination = client.withLock({ $0 }) else { return }
            if let predicate = drop.function, predicate(bytes) {
                dropped.withLock { $0.append(Array(bytes)) }
                return
            }
            send(bytes, to: destination, uplink: false)
        } else {
            client.withLock { $0 = source }
            send(bytes, to: server, uplink: true)
        }
    }

    /// SSRC and sequence number of an RTP datagram (RFC 3550 §5.1; SRTP leaves them clear).
    public static func rtpHeader(_ bytes: UnsafeRawBufferPointer) -> (ssrc: UInt32, seq: UInt16)? {
        guard bytes.count >= 12, bytes[0] >> 6 == 2, !(192...223).contains(bytes[1] & 0x7f) else { return nil }
        let seq = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        return (ssrc, seq)
    }
}
