import RTCNet
import RTCTransport
import Synchronization

/// The in-process carrier between two routers of one channel on two workers of this node
/// (docs/architecture.md, "A channel larger than a worker"): the same relay as between two
/// nodes' routers (a subscriber-like transport on the channel's router whose consumers send each
/// track once; a transport on the other router where the tracks arrive as producers), carried by
/// two `PacketPipe`s instead of DTLS-SRTP over UDP. RTP goes one way, RTCP (NACKs, PLI/FIR,
/// reports) both ways, each packet copied once into a ring slot and read in place on the other
/// worker's thread: no lock, no allocation, no encryption. User data packets (rare, up to 16 KiB)
/// cross on the receiving worker's `execute` queue instead of a slot.
public final class WorkerPipe: Sendable {
    /// The two ends: the channel's router (which sends the media) and the far router.
    public enum Side: Int, Sendable {
        case channel = 0
        case far = 1

        var other: Side { self == .channel ? .far : .channel }
    }

    /// `rings[side]`: the packets *to* that side, pushed by the other side's thread.
    let rings: [PacketPipe]

    /// A side's transport, for user data handed over from the other side.
    // @unchecked Sendable: `port` is Sendable; `transport` is dereferenced only inside `port.execute`, on that transport's I/O thread.
    struct Endpoint: @unchecked Sendable {
        let port: MediaPort
        weak var transport: MediaTransport?
    }
    private let endpoints = Mutex<[Endpoint?]>([nil, nil])

    /// - Parameters:
    ///   - mediaCapacity: packets in flight toward the far side (RTP of every relayed track, a
    ///     key frame's burst among them); more are dropped and counted (the far router's NACK
    ///     recovers one from the channel side's cache). 1024 slots of 1500 bytes: 1.5 MiB.
    ///   - feedbackCapacity: RTCP in flight back to the channel's side (NACKs, PLIs, reports):
    ///     256 slots, 375 KiB.
    public init(mediaCapacity: Int = 1024, feedbackCapacity: Int = 256) throws(NetError) {
        rings = [try PacketPipe(capacity: feedbackCapacity, slotSize: 1500), try PacketPipe(capacity: mediaCapacity, slotSize: 1500)]
    }

    /// Packets dropped because a ring was full, both ways.
    public var droppedCount: Int { rings[0].droppedCount + rings[1].droppedCount }

    func ring(to side: Side) -> PacketPipe { rings[side.rawValue] }

    func setEndpoint(_ side: Side, _ endpoint: Endpoint?) {
        endpoints.withLock { $0[side.rawValue] = endpoint }
    }

    /// Hands a user data packet to `side`'s router, which routes it as one that arrived on its
    /// pipe transport (a relayed packet, `DataFanOut`). Any thread; `false` when that side is gone.
    func deliverData(_ packet: UnsafeRawBufferPointer, channel: UInt16, to side: Side) -> Bool {
        guard let endpoint = endpoints.withLock({ $0[side.rawValue] }) else { return false }
        let bytes = Array(packet)
        endpoint.port.execute {
            guard let transport = endpoint.transport, !transport.closed else { return }
            bytes.withUnsafeBytes { transport.router.data.route($0, channel: channel, from: transport, among: transport.router.transports) }
        }
        return true
    }
}

/// A pipe transport's sink: RTP and RTCP into the ring to the other side, user data through
/// `WorkerPipe.deliverData`. I/O thread of its own side only.
final class PipeSink: PacketSink {
    static let rtp: UInt8 = 0
    static let rtcp: UInt8 = 1

    let pipe: WorkerPipe
    let side: WorkerPipe.Side
    private let outgoing: PacketPipe

    init(pipe: WorkerPipe, side: WorkerPipe.Side) {
        self.pipe = pipe
        self.side = side
        outgoing = pipe.ring(to: side.other)
    }

    /// Packets this end's sends dropped (the other side's ring was full).
    var droppedCount: Int { outgoing.droppedCount }

    func sendRTP(stampedAt arrival: Int64, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        outgoing.push(tag: Self.rtp, write)
    }

    func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        outgoing.push(tag: Self.rtcp, copying: packet)
    }

    func sendUserData(_ packet: UnsafeRawBufferPointer, on channel: UInt16) -> Bool {
        pipe.deliverData(packet, channel: channel, to: side.other)
    }
}
