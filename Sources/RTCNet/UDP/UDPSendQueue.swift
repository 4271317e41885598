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
/// A datagram may carry a stamp (when its cause arrived, `Monotonic.microseconds()`): once the
/// kernel has taken it, the time since goes into `sendLatency` (the SFU's forwarding latency).
///
/// Not thread-safe: the I/O thread owns it. `flush` when the batch ends or when `isFull`.
public final class UDPSendQueue {
    public let capacity: Int
    public let slotSize: Int
    /// Datagrams waiting.
    // `count`, `droppedCount` and `stampedCount` change for every datagram, on the I/O thread
    // only: declared without the dynamic exclusivity check (a runtime call per access).
    @exclusivity(unchecked) public private(set) var count = 0
    /// Datagrams the kernel refused (buffer full, unreachable); dropped, as UDP allows.
    @exclusivity(unchecked) public private(set) var droppedCount = 0
    /// For each stamped datagram the kernel took: µs from its stamp to the return of the
    /// `sendmmsg` that sent it.
    @exclusivity(unchecked) public private(set) var sendLatency = LogHistogram()

    private let slots: DatagramSlots
    /// Each slot's stamp (0: none), and how many queued slots have one.
    private let stamps: UnsafeMutablePointer<Int64>
    @exclusivity(unchecked) private var stampedCount = 0

    public init(capacity: Int = 64, slotSize: Int = 2048) {
        self.capacity = capacity
        self.slotSize = slotSize
        slots = DatagramSlots(count: capacity, slotSize: slotSize)
        stamps = .allocate(capacity: capacity)
        stamps.initialize(repeating: 0, count: capacity)
    }

    deinit { stamps.deallocate() }

    public var isFull: Bool { count == capacity }

    /// Lets `write` fill the next slot (`slotSize` bytes) and returns `true` if it was queued.
    /// `write` returns the datagram's length, or `nil` to abandon the slot (e.g. protect failed).
    /// The caller flushes first when `isFull`; a full queue refuses. A positive `stamp`
    /// (`Monotonic.microseconds()` when the datagram's cause arrived) is timed into `sendLatency`.
    @discardableResult
    public func enqueue(to address: SocketAddress, stamp: Int64 = 0, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        guard count < capacity else { droppedCount += 1; return false }
        let slot = UnsafeMutableRawBufferPointer(start: slots.slot(count), count: slotSize)
        guard let length = write(slot), length > 0, length <= slotSize else { return false }
        slots.describe(count, length: length, nameLength: address.write(to: slots.addresses + count))
        stamps[count] = stamp
        if stamp > 0 { stampedCount += 1 }
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
            let sent = sendmmsg(socket.descriptor, slots.headers + start, UInt32(count - start), 0)
            if sent <= 0 {
                // EAGAIN or a per-destination error on the first message: drop that one, go on.
                droppedCount += 1
                start += 1
            } else {
                if stampedCount > 0 { timeStamped(start ..< start + Int(sent)) }
                start += Int(sent)
            }
        }
        #else
        for i in 0..<count {
            let length = slots.addresses[i].ss_family == sa_family_t(AF_INET6)
                ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
            let n = (slots.addresses + i).withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(socket.descriptor, slots.iovecs[i].iov_base, slots.iovecs[i].iov_len, 0, $0, length)
            }
            if n < 0 { droppedCount += 1 } else if stampedCount > 0 { timeStamped(i ..< i + 1) }
        }
        #endif
        count = 0
        stampedCount = 0
    }

    /// Records the stamped datagrams of `sent` against one clock reading (after the call that sent them).
    private func timeStamped(_ sent: Range<Int>) {
        let now = Monotonic.microseconds()
        for i in sent where stamps[i] > 0 { sendLatency.record(now - stamps[i]) }
    }
}
