#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// Datagrams waiting to be sent in one batch (`sendmmsg` on Linux, a `sendto` loop elsewhere).
/// Slots are allocated once; a caller writes (for example SRTP-protects) straight into a slot with
/// `enqueue(to:_:)`, so forwarding a packet costs no allocation and no extra copy.
///
/// Not thread-safe: the I/O thread owns it. `flush` when the batch ends or when `isFull`.
public final class UDPSendQueue {
    public let capacity: Int
    public let slotSize: Int
    /// Datagrams waiting.
    public private(set) var count = 0
    /// Datagrams the kernel refused (buffer full, unreachable); dropped, as UDP allows.
    public private(set) var droppedCount = 0

    private let buffers: UnsafeMutableRawPointer
    private let addresses: UnsafeMutablePointer<sockaddr_storage>
    private let iovecs: UnsafeMutablePointer<iovec>
    #if os(Linux)
    private let headers: UnsafeMutablePointer<mmsghdr>
    #endif

    public init(capacity: Int = 64, slotSize: Int = 2048) {
        self.capacity = capacity
        self.slotSize = slotSize
        buffers = UnsafeMutableRawPointer.allocate(byteCount: capacity * slotSize, alignment: 16)
        addresses = .allocate(capacity: capacity)
        addresses.initialize(repeating: sockaddr_storage(), count: capacity)
        iovecs = .allocate(capacity: capacity)
        iovecs.initialize(repeating: iovec(), count: capacity)
        #if os(Linux)
        headers = .allocate(capacity: capacity)
        headers.initialize(repeating: mmsghdr(), count: capacity)
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

    public var isFull: Bool { count == capacity }

    /// Lets `write` fill the next slot (`slotSize` bytes) and returns `true` if it was queued.
    /// `write` returns the datagram's length, or `nil` to abandon the slot (e.g. protect failed).
    /// The caller flushes first when `isFull`; a full queue refuses.
    @discardableResult
    public func enqueue(to address: SocketAddress, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        guard count < capacity else { droppedCount += 1; return false }
        let slot = UnsafeMutableRawBufferPointer(start: buffers + count * slotSize, count: slotSize)
        guard let length = write(slot), length > 0, length <= slotSize else { return false }
        let nameLength = address.write(to: addresses + count)
        iovecs[count] = iovec(iov_base: slot.baseAddress, iov_len: length)
        #if os(Linux)
        headers[count].msg_hdr = msghdr(msg_name: UnsafeMutableRawPointer(addresses + count), msg_namelen: nameLength,
                                        msg_iov: iovecs + count, msg_iovlen: 1,
                                        msg_control: nil, msg_controllen: 0, msg_flags: 0)
        headers[count].msg_len = 0
        #else
        _ = nameLength
        #endif
        count += 1
        return true
    }

    /// Copies `bytes` into the next slot.
    @discardableResult
    public func enqueue(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
        guard bytes.count <= slotSize else { droppedCount += 1; return false }
        return enqueue(to: address) { slot in
            slot.copyMemory(from: bytes)
            return bytes.count
        }
    }

    /// Sends every queued datagram and empties the queue.
    public func flush(on socket: UDPSocket) {
        guard count > 0 else { return }
        #if os(Linux)
        var start = 0
        while start < count {
            let sent = sendmmsg(socket.descriptor, headers + start, UInt32(count - start), 0)
            if sent <= 0 {
                // EAGAIN or a per-destination error on the first message: drop that one, go on.
                droppedCount += 1
                start += 1
            } else {
                start += Int(sent)
            }
        }
        #else
        for i in 0..<count {
            let length = addresses[i].ss_family == sa_family_t(AF_INET6)
                ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
            let n = (addresses + i).withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(socket.descriptor, iovecs[i].iov_base, iovecs[i].iov_len, 0, $0, length)
            }
            if n < 0 { droppedCount += 1 }
        }
        #endif
        count = 0
    }
}
