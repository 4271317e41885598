#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound, non-blocking UDP socket. Sends go straight to the kernel (`sendto`, or one `sendmmsg`
/// for a `UDPSendQueue`); receives are batched by `UDPBatchReceiver`.
///
/// Threading: the descriptor may be used from any thread, but the batch types that read and write
/// it are single-threaded; the usual owner is one `UDPReceiveLoop` thread.
// @unchecked Sendable: `localAddress` is fixed at init; `descriptor` changes only in `close()`, which only deinit calls (no other reference is left then).
public final class UDPSocket: @unchecked Sendable {
    /// The file descriptor; -1 after `close()`.
    public private(set) var descriptor: Int32
    /// The bound address, with the port the kernel chose when bound to port 0.
    public let localAddress: SocketAddress

    /// Opens a UDP socket bound to `address` (port 0 picks a free port).
    /// - Parameter bufferBytes: `SO_RCVBUF`/`SO_SNDBUF` to ask for; bursts of video need more than the default.
    public init(bind address: SocketAddress, bufferBytes: Int32 = 4 << 20) throws(NetError) {
        let fd = try Sockets.udpSocket(for: address.family)
        var size = bufferBytes
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        if address.family == .ipv6 {
            var only: Int32 = 1 // keep v4 and v6 sockets separate and predictable
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let e = errno
            _ = udpCloseDescriptor(fd)
            throw .system(call: "bind", errno: e)
        }
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let local = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(sockaddr: $0) }
        }
        guard named == 0, let local else {
            let e = errno
            _ = udpCloseDescriptor(fd)
            throw .system(call: "getsockname", errno: e)
        }
        descriptor = fd
        localAddress = local
    }

    deinit { close() }

    /// Sends one datagram. Returns `false` when the kernel refused it (full buffer, unreachable);
    /// UDP callers drop and count rather than retry.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
        var storage = sockaddr_storage()
        let length = address.write(to: &storage)
        let sent = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, length)
            }
        }
        return sent == bytes.count
    }

    /// Sends one datagram from an array (control traffic: STUN, DTLS).
    @discardableResult
    public func send(_ bytes: [UInt8], to address: SocketAddress) -> Bool {
        bytes.withUnsafeBytes { send($0, to: address) }
    }

    /// Closes the descriptor; later calls fail harmlessly.
    public func close() {
        if descriptor >= 0 {
            _ = udpCloseDescriptor(descriptor)
            descriptor = -1
        }
    }
}

@inline(__always)
func udpCloseDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}
