#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking TCP socket for an I/O thread that is not an `EventLoop`: the media port's
/// `UDPReceiveLoop` polls listening and connected ICE-TCP sockets beside its UDP socket
/// (`UDPReceiveLoop.watch`). The owner reads and writes it on that thread only.
// @unchecked Sendable: read, written and closed only on its owner's `UDPReceiveLoop` thread; addresses are fixed at init.
public final class TCPSocket: @unchecked Sendable {
    /// Outcome of one read or write attempt.
    public enum IOResult: Sendable, Equatable {
        /// This many bytes were read or written.
        case processed(Int)
        /// Nothing to read, or no room in the kernel's buffer, now.
        case wouldBlock
        /// The peer closed its side (read) or the socket is shut.
        case endOfStream
        /// The call failed with this errno.
        case failed(Int32)
    }

    /// The descriptor; -1 after `close()`.
    public private(set) var descriptor: Int32
    /// The bound address (with the port the kernel chose for port 0).
    public let localAddress: SocketAddress
    /// The peer's address (connected sockets).
    public let remoteAddress: SocketAddress?

    private init(descriptor: Int32, localAddress: SocketAddress, remoteAddress: SocketAddress?) {
        self.descriptor = descriptor
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
    }

    deinit { close() }

    /// A listening socket bound to `address` (port 0 picks a free port).
    public static func listen(on address: SocketAddress, backlog: Int32 = 128) throws(NetError) -> TCPSocket {
        let fd = try Sockets.listen(on: address, backlog: backlog)
        return TCPSocket(descriptor: fd, localAddress: Sockets.localAddress(fd) ?? address, remoteAddress: nil)
    }

    /// Starts a non-blocking connection to `address`; `connected` is `false` while it is in
    /// progress (wait for writability, then check `connectError`).
    public static func connect(to address: SocketAddress) throws(NetError) -> (socket: TCPSocket, connected: Bool) {
        let fd = try Sockets.tcpSocket(for: address.family)
        let done: Bool
        do { done = try Sockets.startConnect(fd, to: address) } catch {
            Sockets.close(fd)
            throw error
        }
        Sockets.setNoDelay(fd)
        let local = Sockets.localAddress(fd) ?? address.with(port: 0)
        return (TCPSocket(descriptor: fd, localAddress: local, remoteAddress: address), done)
    }

    /// Accepts one pending connection (non-blocking, TCP_NODELAY); `nil` when none is pending.
    public func accept() throws(NetError) -> TCPSocket? {
        guard let (fd, remote) = try Sockets.accept(descriptor) else { return nil }
        Sockets.setNoDelay(fd)
        return TCPSocket(descriptor: fd, localAddress: Sockets.localAddress(fd) ?? localAddress, remoteAddress: remote)
    }

    /// The outcome of a non-blocking connect once the socket is writable: 0 or an errno.
    public var connectError: Int32 { Sockets.pendingError(descriptor) }

    /// Reads what is available into `buffer`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        IOResult(Sockets.read(descriptor, into: buffer))
    }

    /// Writes as much of `bytes` as the kernel takes now.
    public func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        IOResult(Sockets.write(descriptor, bytes))
    }

    /// Closes the descriptor; later calls fail harmlessly.
    public func close() {
        guard descriptor >= 0 else { return }
        Sockets.close(descriptor)
        descriptor = -1
    }
}

extension TCPSocket.IOResult {
    init(_ result: Sockets.IOResult) {
        switch result {
        case .processed(let n): self = .processed(n)
        case .wouldBlock: self = .wouldBlock
        case .endOfStream: self = .endOfStream
        case .failed(let e): self = .failed(e)
        }
    }
}
