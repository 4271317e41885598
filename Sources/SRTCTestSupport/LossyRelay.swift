import RTCNet
import RTCTransport
import Synchronization
import TestRandom

/// A UDP relay between one client and the server's media port that drops chosen server→client
/// datagrams before they reach the client's SRTP, as a lossy network does (a packet dropped after
/// decryption would make its retransmission look like a replay), and may delay them by a random
/// jitter (which also reorders them, as a real path sometimes does).
public final class LossyRelay: @unchecked Sendable {
    /// Random loss and delay of the server→client direction.
    public struct Impairment: Sendable {
        /// Probability of dropping each datagram (0...1).
        public var lossRate: Double
        /// Each datagram is held for a uniformly random time in 0...jitter (10 ms granularity).
        public var jitter: Duration
        public var seed: UInt64

        public init(lossRate: Double = 0, jitter: Duration = .zero, seed: UInt64 = 1) {
            self.lossRate = lossRate
            self.jitter = jitter
            self.seed = seed
        }
    }

    private let socket: UDPSocket
    private let loop: UDPReceiveLoop
    private let server: SocketAddress
    private let client = Mutex<SocketAddress?>(nil)
    private let impairment: Impairment
    // I/O thread only.
    private var random: SeededRandom
    private var delayed: [(due: ContinuousClock.Instant, order: Int, bytes: [UInt8])] = []
    private var order = 0
    /// Decides from a server→client datagram (still SRTP-protected; its RTP header is clear) whether to drop it.
    public let drop = CallbackSlot<@Sendable (UnsafeRawBufferPointer) -> Bool>()
    /// The datagrams `drop` dropped.
    public let dropped = Mutex<[[UInt8]]>([])
    /// Server→client datagrams forwarded and lost to the random impairment.
    public let counters = Mutex((forwarded: 0, lost: 0))
    /// Drops everything both ways, as a network path that went away.
    public let broken = Mutex(false)

    public init(server: SocketAddress, impairment: Impairment = Impairment()) throws {
        self.server = server
        self.impairment = impairment
        random = SeededRandom(seed: impairment.seed)
        socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        loop = try UDPReceiveLoop(socket: socket)
        loop.onDatagram = { [unowned self] bytes, source in self.forward(UnsafeRawBufferPointer(bytes), from: source) }
        loop.onTick = { [unowned self] now in self.releaseDelayed(now: now) }
        loop.start(name: "test-relay")
    }

    /// The address the client should send to.
    public var address: SocketAddress { socket.localAddress }

    public func stop() { loop.stop() }

    private func forward(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        guard !broken.withLock({ $0 }) else { return }
        guard source == server else {
            client.withLock { $0 = source }
            _ = socket.send(bytes, to: server)
            return
        }
        guard let destination = client.withLock({ $0 }) else { return }
        if let predicate = drop.function, predicate(bytes) {
            dropped.withLock { $0.append(Array(bytes)) }
            return
        }
        if impairment.lossRate > 0, Double(random.next() % 1_000_000) / 1_000_000 < impairment.lossRate {
            counters.withLock { $0.lost += 1 }
            return
        }
        counters.withLock { $0.forwarded += 1 }
        let jitterNs = Monotonic.nanoseconds(impairment.jitter)
        guard jitterNs > 0 else {
            _ = socket.send(bytes, to: destination)
            return
        }
        let delay = Duration.nanoseconds(Int64(random.next() % (jitterNs + 1)))
        order += 1
        delayed.append((ContinuousClock.now + delay, order, Array(bytes)))
    }

    /// Sends the held datagrams whose time came, in the order their delays put them.
    private func releaseDelayed(now: ContinuousClock.Instant) {
        guard !delayed.isEmpty, let destination = client.withLock({ $0 }) else { return }
        let due = delayed.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        guard !due.isEmpty else { return }
        delayed.removeAll { $0.due <= now }
        for datagram in due { _ = socket.send(datagram.bytes, to: destination) }
    }

    /// SSRC and sequence number of an RTP datagram (RFC 3550 §5.1; SRTP leaves them clear).
    public static func rtpHeader(_ bytes: UnsafeRawBufferPointer) -> (ssrc: UInt32, seq: UInt16)? {
        guard bytes.count >= 12, bytes[0] >> 6 == 2, !(192...223).contains(bytes[1] & 0x7f) else { return nil }
        let seq = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        return (ssrc, seq)
    }
}
