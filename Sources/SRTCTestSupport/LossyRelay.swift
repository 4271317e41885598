import RTCNet
import RTCTransport
import Synchronization

/// A UDP relay between one client and the server's media port that drops chosen server→client
/// datagrams before they reach the client's SRTP, as a lossy network does (a packet dropped after
/// decryption would make its retransmission look like a replay).
public final class LossyRelay: @unchecked Sendable {
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

    public init(server: SocketAddress) throws {
        self.server = server
        socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        loop = try UDPReceiveLoop(socket: socket)
        loop.onDatagram = { [unowned self] bytes, source in self.forward(UnsafeRawBufferPointer(bytes), from: source) }
        loop.start(name: "test-relay")
    }

    /// The address the client should send to.
    public var address: SocketAddress { socket.localAddress }

    public func stop() { loop.stop() }

    private func forward(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        guard !broken.withLock({ $0 }) else { return }
        if source == server {
            guard let destination = client.withLock({ $0 }) else { return }
            if let predicate = drop.function, predicate(bytes) {
                dropped.withLock { $0.append(Array(bytes)) }
                return
            }
            _ = socket.send(bytes, to: destination)
        } else {
            client.withLock { $0 = source }
            _ = socket.send(bytes, to: server)
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
