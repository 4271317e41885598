import RTCNet
import RTCTransport
import Synchronization

/// A UDP relay between a client and the SFU's port that can drop chosen datagrams on their way to
/// the client, before SRTP, as a lossy network would (so a later retransmission is not a replay).
final class LossyRelay: @unchecked Sendable {
    private let socket: UDPSocket
    private let loop: UDPReceiveLoop
    private let server: SocketAddress
    /// Decides, from a server→client datagram's bytes, whether to drop it.
    let drop = Mutex<(@Sendable (UnsafeRawBufferPointer) -> Bool)?>(nil)
    /// The datagrams dropped so far (still SRTP-protected).
    let dropped = Mutex<[[UInt8]]>([])
    private var client: SocketAddress?

    init(server: SocketAddress) throws {
        self.server = server
        socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        loop = try UDPReceiveLoop(socket: socket)
        loop.onDatagram = { [unowned self] bytes, source in self.relay(UnsafeRawBufferPointer(bytes), from: source) }
        loop.start(name: "test-relay")
    }

    /// Where the client should send.
    var address: SocketAddress { socket.localAddress }

    func stop() { loop.stop() }

    private func relay(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        if source == server {
            guard let client else { return }
            if let filter = drop.withLock({ $0 }), filter(bytes) {
                dropped.withLock { $0.append(Array(bytes)) }
                return
            }
            _ = socket.send(bytes, to: client)
        } else {
            client = source
            _ = socket.send(bytes, to: server)
        }
    }

    /// The SSRC and sequence number of an SRTP packet (its header travels in the clear, RFC 3711 §3.1).
    static func rtpHeader(_ bytes: UnsafeRawBufferPointer) -> (ssrc: UInt32, seq: UInt16)? {
        guard PacketKind.classify(bytes) == .rtp, bytes.count >= 12 else { return nil }
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        return (ssrc, UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
    }
}
