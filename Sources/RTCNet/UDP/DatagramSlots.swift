#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// The buffers of one batch of datagrams, allocated once: `count` slots of `slotSize` bytes, each
/// with its address and the `iovec` and (Linux) `mmsghdr` that describe it to `recvmmsg` and
/// `sendmmsg` (man 2 recvmmsg). `UDPBatchReceiver` and `UDPSendQueue` each own one.
///
/// Not thread-safe: its owner's thread uses it.
struct DatagramSlots: ~Copyable {
    let count: Int
    let slotSize: Int
    let addresses: UnsafeMutablePointer<sockaddr_storage>
    let iovecs: UnsafeMutablePointer<iovec>
    #if os(Linux)
    let headers: UnsafeMutablePointer<mmsghdr>
    #endif
    private let buffers: UnsafeMutableRawPointer

    init(count: Int, slotSize: Int) {
        self.count = count
        self.slotSize = slotSize
        buffers = UnsafeMutableRawPointer.allocate(byteCount: count * slotSize, alignment: 16)
        addresses = .allocate(capacity: count)
        addresses.initialize(repeating: sockaddr_storage(), count: count)
        iovecs = .allocate(capacity: count)
        iovecs.initialize(repeating: iovec(), count: count)
        #if os(Linux)
        headers = .allocate(capacity: count)
        headers.initialize(repeating: mmsghdr(), count: count)
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

    /// The start of slot `index`'s `slotSize` bytes.
    func slot(_ index: Int) -> UnsafeMutableRawPointer { buffers + index * slotSize }

    /// Points slot `index`'s descriptors at its first `length` bytes and its address
    /// (`nameLength` bytes of it: the room to receive one, or the length of the one to send to).
    func describe(_ index: Int, length: Int, nameLength: socklen_t) {
        iovecs[index] = iovec(iov_base: slot(index), iov_len: length)
        #if os(Linux)
        headers[index].msg_hdr = msghdr(msg_name: UnsafeMutableRawPointer(addresses + index), msg_namelen: nameLength,
                                        msg_iov: iovecs + index, msg_iovlen: 1, msg_control: nil, msg_controllen: 0, msg_flags: 0)
        headers[index].msg_len = 0
        #endif
    }

    /// The address stored in slot `index` (a received datagram's source).
    func address(_ index: Int) -> SocketAddress? {
        SocketAddress(sockaddr: UnsafeRawPointer(addresses + index).assumingMemoryBound(to: sockaddr.self))
    }
}
