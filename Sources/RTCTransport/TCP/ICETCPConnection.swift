import RTCNet
import RTCWire

/// One ICE-TCP connection (RFC 6544): STUN, DTLS, SRTP and SRTCP packets on a TCP stream, each
/// preceded by its 16-bit length (RFC 4571 §2). It lives on a `UDPReceiveLoop` thread (the media
/// port's, or a client transport's), which polls its socket beside the UDP socket; the packets it
/// reads go to `onPacket`, and `send` frames packets into its outbound buffer.
///
/// Media over TCP must not build an unbounded queue behind a slow path: past `maxOutboundBytes`
/// whole packets are dropped (counted), never parts of one, so the framing stays intact.
// @unchecked Sendable: the socket, buffers and counters are used only on `loop`'s thread, which polls its socket.
public final class ICETCPConnection: @unchecked Sendable {
    /// Queued bytes beyond which packets are dropped.
    public static let maxOutboundBytes = 1 << 20

    /// The peer's address (the ICE candidate address checks from this connection come from).
    public let remoteAddress: SocketAddress
    /// Packets dropped because the outbound buffer was full.
    public private(set) var droppedPackets = 0
    public private(set) var isClosed = false
    /// When the connection was opened or accepted (the media port closes idle strangers).
    let openedAt: ContinuousClock.Instant
    /// The transport this connection's checks were routed to (set by the media port or the client).
    weak var transport: PeerTransport?

    /// Each packet read (mutable, valid only during the call; it may be decrypted in place).
    var onPacket: (ICETCPConnection, UnsafeMutableRawBufferPointer) -> Void = { _, _ in }
    /// The connection closed (peer, error or framing violation); called once.
    var onClose: (ICETCPConnection) -> Void = { _ in }

    private let socket: TCPSocket
    private let loop: UDPReceiveLoop
    private var connecting: Bool
    /// What the loop polls the socket for now.
    private var polled: (read: Bool, write: Bool)
    private var deframer = RFC4571Deframer()
    private var outbound = ByteBuffer()
    /// Read buffer, then a packet copied out of the deframer for in-place decryption, and a send
    /// slot that `send` writes a packet into behind its two length bytes: allocated once.
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let packetBuffer: UnsafeMutableRawBufferPointer
    private let sendSlot: UnsafeMutableRawBufferPointer

    /// Wraps an accepted or connecting socket and starts polling it. Loop thread only.
    init(socket: TCPSocket, connecting: Bool, loop: UDPReceiveLoop, now: ContinuousClock.Instant = .now) {
        self.socket = socket
        self.loop = loop
        self.connecting = connecting
        remoteAddress = socket.remoteAddress ?? socket.localAddress
        openedAt = now
        polled = (!connecting, connecting)
        readBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
        packetBuffer = .allocate(byteCount: RFC4571Framer.maxPacketSize, alignment: 16)
        sendSlot = .allocate(byteCount: 2 + 2048, alignment: 16)
        loop.watch(socket.descriptor, read: !connecting, write: connecting) { [unowned self] readiness in
            self.handle(readiness)
        }
    }

    deinit {
        readBuffer.deallocate()
        packetBuffer.deallocate()
        sendSlot.deallocate()
    }

    /// Opens an active connection to `address` (a client's ICE-TCP check path). Loop thread only.
    static func connect(to address: SocketAddress, loop: UDPReceiveLoop) throws(NetError) -> ICETCPConnection {
        let (socket, connected) = try TCPSocket.connect(to: address)
        return ICETCPConnection(socket: socket, connecting: !connected, loop: loop)
    }

    // MARK: - Sending

    /// Lets `write` put one packet (at most 2048 bytes) into the send slot, frames it and queues it.
    /// Returns `false` when `write` cancelled, the connection is closed or the buffer is full.
    @discardableResult
    func send(_ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        guard !isClosed else { return false }
        let room = UnsafeMutableRawBufferPointer(rebasing: sendSlot[2...])
        guard let length = write(room), length > 0, length <= room.count else { return false }
        guard outbound.readableBytes + length + 2 <= Self.maxOutboundBytes else {
            droppedPackets += 1
            return false
        }
        sendSlot[0] = UInt8(length >> 8)
        sendSlot[1] = UInt8(length & 0xFF)
        let frame = UnsafeRawBufferPointer(rebasing: sendSlot[0..<(length + 2)])
        if outbound.isEmpty && !connecting {
            switch socket.write(frame) {
            case .processed(let n):
                if n < frame.count { outbound.append(UnsafeRawBufferPointer(rebasing: frame[n...])) }
            case .wouldBlock, .endOfStream:
                outbound.append(frame)
            case .failed:
                close()
                return false
            }
        } else {
            outbound.append(frame)
        }
        updateInterest()
        return true
    }

    /// Copies `packet` into a frame.
    @discardableResult
    func send(_ packet: UnsafeRawBufferPointer) -> Bool {
        send { room in
            guard packet.count <= room.count else { return nil }
            room.copyMemory(from: packet)
            return packet.count
        }
    }

    /// Closes the socket and stops polling it; reports `onClose` once. Loop thread only.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        loop.unwatch(socket.descriptor)
        socket.close()
        outbound.clear()
        let handler = onClose
        onClose = { _ in }
        onPacket = { _, _ in }
        handler(self)
    }

    // MARK: - Readiness

    private func handle(_ readiness: UDPReceiveLoop.Readiness) {
        if connecting {
            guard readiness.writable || readiness.hangup else { return }
            guard socket.connectError == 0 else { return close() }
            connecting = false
        }
        if readiness.writable { flush() }
        if readiness.readable || readiness.hangup, !isClosed { readAvailable() }
        if !isClosed { updateInterest() }
    }

    private func readAvailable() {
        // A few reads per wakeup, so one busy stream cannot starve the UDP socket.
        for _ in 0..<4 {
            switch socket.read(into: readBuffer) {
            case .processed(let n):
                do {
                    try deframer.push(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n])) { packet in
                        guard !isClosed else { return }
                        let copy = UnsafeMutableRawBufferPointer(rebasing: packetBuffer[0..<packet.count])
                        copy.copyMemory(from: packet)
                        onPacket(self, copy)
                    }
                } catch {
                    return close() // RFC 4571 framing broken: nothing after it can be trusted
                }
                if isClosed || n < readBuffer.count { return }
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                return close()
            }
        }
    }

    private func flush() {
        while !outbound.isEmpty {
            switch outbound.withReadableBytes({ socket.write($0) }) {
            case .processed(let n): outbound.moveReaderIndex(by: n)
            case .wouldBlock, .endOfStream: return
            case .failed: return close()
            }
        }
    }

    /// Tells the loop what to poll for, only when it changed (a lookup per packet would not pay).
    private func updateInterest() {
        guard !isClosed else { return }
        let interest = (read: !connecting, write: connecting || !outbound.isEmpty)
        guard interest != polled else { return }
        polled = interest
        loop.setInterest(socket.descriptor, read: interest.read, write: interest.write)
    }
}
