#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads up to `batchSize` datagrams per system call (`recvmmsg` on Linux, a `recvfrom` loop
/// elsewhere) into buffers allocated once, and hands each one to a handler as a mutable view, so
/// the caller can decrypt in place. No allocation per datagram.
///
/// Not thread-safe: one thread (the receive loop) owns it.
public final class UDPBatchReceiver {
    /// Bytes per datagram slot; longer datagrams are dropped (WebRTC keeps packets under ~1200 bytes).
    public let slotSize: Int
    public let batchSize: Int
    /// Datagrams dropped because they did not fit a slot.
    public private(set) var truncatedCount = 0

    private let buffers: UnsafeMutableRawPointer
    private let addresses: UnsafeMutablePointer<sockaddr_storage>
    private let iovecs: UnsafeMutablePointer<iovec>
    #if os(Linux)
    private let headers: UnsafeMutablePointer<mmsghdr>
    #endif

    /// - Parameters:
    ///   - batchSize: datagrams per system call.
    ///   - slotSize: bytes per datagram buffer, including room an in-place operation may need.
    public init(batchSize: Int = 32, slotSize: Int = 2048) {
        self.batchSize = batchSize
        self.slotSize = slotSize
        buffers = UnsafeMutableRawPointer.allocate(byteCount: batchSize * slotSize, alignment: 16)
        addresses = .allocate(capacity: batchSize)
        addresses.initialize(repeating: sockaddr_storage(), count: batchSize)
        iovecs = .allocate(capacity: batchSize)
        for i in 0..<batchSize {
            iovecs[i] = iovec(iov_base: buffers + i * slotSize, iov_len: slotSize)
        }
        #if os(Linux)
        headers = .allocate(capacity: batchSize)
        headers.initialize(repeating: mmsghdr(), count: batchSize)
        #endif
    }

    deinit {
        buffers.deallocate()
        addresses.deallocate()
        iovecs.deallocate()
        #if os(Linux)
        headers.deallocate()
        #endif
    }

    /// Reads what is waiting on `socket` (without blocking) and calls `handler` once per datagram.
    /// - Returns: the number of datagrams handled; 0 when nothing was waiting.
    @discardableResult
    public func receive(from socket: UDPSocket, _ handler: (UnsafeMutableRawBufferPointer, SocketAddress) -> Void) -> Int {
        #if os(Linux)
        for i in 0..<batchSize {
            headers[i].msg_hdr.msg_name = UnsafeMutableRawPointer(addresses + i)
            headers[i].msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            headers[i].msg_hdr.msg_iov = iovecs + i
            headers[i].msg_hdr.msg_iovlen = 1
            headers[i].msg_hdr.msg_control = nil
            headers[i].msg_hdr.msg_controllen = 0
            headers[i].msg_hdr.msg_flags = 0
            headers[i].msg_len = 0
        }
        let count = recvmmsg(socket.descriptor, headers, UInt32(batchSize), Int32(MSG_DONTWAIT), nil)
        guard count > 0 else { return 0 }
        var handled = 0
        for i in 0..<Int(count) {
            if headers[i].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 { truncatedCount += 1; continue }
            let address = UnsafeRawPointer(addresses + i).assumingMemoryBound(to: sockaddr.self)
            guard let remote = SocketAddress(sockaddr: address) else { continue }
            handler(UnsafeMutableRawBufferPointer(start: buffers + i * slotSize, count: Int(headers[i].msg_len)), remote)
            handled += 1
        }
        return handled
        #else
        var handled = 0
        for i in 0..<batchSize {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let slot = buffers + i * slotSize
            let n = (addresses + i).withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(socket.descriptor, slot, slotSize, MSG_DONTWAIT, $0, &length)
            }
            guard n >= 0 else { break }
            let address = UnsafeRawPointer(addresses + i).assumingMemoryBound(to: sockaddr.self)
            guard let remote = SocketAddress(sockaddr: address) else { continue }
            handler(UnsafeMutableRawBufferPointer(start: slot, count: n), remote)
            handled += 1
        }
        return handled
        #endif
    }
}
