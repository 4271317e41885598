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

    private let slots: DatagramSlots

    /// - Parameters:
    ///   - batchSize: datagrams per system call.
    ///   - slotSize: bytes per datagram buffer, including room an in-place operation may need.
    public init(batchSize: Int = 32, slotSize: Int = 2048) {
        self.batchSize = batchSize
        self.slotSize = slotSize
        slots = DatagramSlots(count: batchSize, slotSize: slotSize)
    }

    /// Reads what is waiting on `socket` (without blocking) and calls `handler` once per datagram.
    /// - Returns: the number of datagrams handled; 0 when nothing was waiting.
    @discardableResult
    public func receive(from socket: UDPSocket, _ handler: (UnsafeMutableRawBufferPointer, SocketAddress) -> Void) -> Int {
        #if os(Linux)
        for i in 0..<batchSize {
            slots.describe(i, length: slotSize, nameLength: socklen_t(MemoryLayout<sockaddr_storage>.size))
        }
        let count = recvmmsg(socket.descriptor, slots.headers, UInt32(batchSize), Int32(MSG_DONTWAIT), nil)
        guard count > 0 else { return 0 }
        var handled = 0
        for i in 0..<Int(count) {
            if slots.headers[i].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 { truncatedCount += 1; continue }
            guard let remote = slots.address(i) else { continue }
            handler(UnsafeMutableRawBufferPointer(start: slots.slot(i), count: Int(slots.headers[i].msg_len)), remote)
            handled += 1
        }
        return handled
        #else
        var handled = 0
        for i in 0..<batchSize {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let slot = slots.slot(i)
            let n = (slots.addresses + i).withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(socket.descriptor, slot, slotSize, MSG_DONTWAIT, $0, &length)
            }
            guard n >= 0 else { break }
            guard let remote = slots.address(i) else { continue }
            handler(UnsafeMutableRawBufferPointer(start: slot, count: n), remote)
            handled += 1
        }
        return handled
        #endif
    }
}
