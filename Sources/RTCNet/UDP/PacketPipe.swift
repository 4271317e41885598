import Synchronization

/// A single-producer, single-consumer ring of packets from one event-loop thread to another
/// (docs/architecture.md, "A channel larger than a worker"): fixed slots allocated once, two
/// atomic counters, and a wake-up descriptor the consumer's loop polls (`readFD`, an eventfd on
/// Linux). A packet is written straight into its slot by the producer and read in place by the
/// consumer, so the steady state allocates nothing and takes no lock.
///
/// The wake-up is coalesced: the producer signals only when the consumer has cleared `signalled`
/// since its last signal, so a burst costs one `write` however many packets it holds.
///
/// Threading: `push` on the producing thread only, `drain` on the consuming thread only;
/// `droppedCount` and `readFD` from anywhere.
// @unchecked Sendable: single producer, single consumer: slots are handed over by the atomic `head`/`tail` (acquire/release), the pointers are fixed at init.
public final class PacketPipe: @unchecked Sendable {
    /// Packets the ring holds (a power of two).
    public let capacity: Int
    /// The largest packet a slot takes.
    public let slotSize: Int
    private let mask: Int
    private let storage: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int32>
    private let tags: UnsafeMutablePointer<UInt8>
    /// Next slot to read (written by the consumer).
    private let head = Atomic<Int>(0)
    /// Next slot to write (written by the producer).
    private let tail = Atomic<Int>(0)
    /// Set by the producer when it signalled, cleared by the consumer before it reads.
    private let signalled = Atomic<Bool>(false)
    private let dropped = Atomic<Int>(0)
    private let wakeup: Wakeup

    /// - Parameters:
    ///   - capacity: packets in flight at most (rounded up to a power of two).
    ///   - slotSize: the largest packet (an RTP packet fits 1500).
    public init(capacity: Int = 1024, slotSize: Int = 1500) throws(NetError) {
        var rounded = 1
        while rounded < max(2, capacity) { rounded <<= 1 }
        self.capacity = rounded
        self.slotSize = slotSize
        mask = rounded - 1
        wakeup = try Wakeup()
        storage = UnsafeMutableRawPointer.allocate(byteCount: rounded * slotSize, alignment: 16)
        lengths = .allocate(capacity: rounded)
        lengths.initialize(repeating: 0, count: rounded)
        tags = .allocate(capacity: rounded)
        tags.initialize(repeating: 0, count: rounded)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        tags.deallocate()
        wakeup.close()
    }

    /// The descriptor that becomes readable when packets wait: poll it on the consuming loop.
    public var readFD: Int32 { wakeup.readFD }

    /// Packets refused because the ring was full (the consumer fell behind).
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Packets waiting now (approximate from another thread).
    public var count: Int { tail.load(ordering: .relaxed) - head.load(ordering: .relaxed) }

    /// Lets `write` fill the next slot (returning the length, or nil to abandon it) and hands it
    /// to the consumer with `tag`. Producer thread only. `false`: the ring was full (counted) or
    /// `write` abandoned the slot.
    @discardableResult
    public func push(tag: UInt8, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < capacity else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        let index = t & mask
        let slot = UnsafeMutableRawBufferPointer(start: storage + index * slotSize, count: slotSize)
        guard let length = write(slot), length > 0, length <= slotSize else { return false }
        lengths[index] = Int32(length)
        tags[index] = tag
        tail.store(t + 1, ordering: .releasing)
        // An RMW pairs with the consumer's: if it saw our `true`, it sees the slot too; if it
        // cleared the flag first, we read `false` and signal again.
        if !signalled.exchange(true, ordering: .sequentiallyConsistent) { wakeup.signal() }
        return true
    }

    /// `push` with a copy of `bytes`.
    @discardableResult
    public func push(tag: UInt8, copying bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= slotSize else { return false }
        return push(tag: tag) { slot in
            slot.copyMemory(from: bytes)
            return bytes.count
        }
    }

    /// Clears the wake-up, then hands each waiting packet to `body` (a mutable view valid only
    /// during the call) and frees its slot. Consumer thread only. Returns how many it handed.
    @discardableResult
    public func drain(_ body: (UInt8, UnsafeMutableRawBufferPointer) -> Void) -> Int {
        // The descriptor first, then the flag: a signal made after the flag is cleared stays
        // pending on the descriptor and wakes the loop again.
        wakeup.drain()
        _ = signalled.exchange(false, ordering: .sequentiallyConsistent)
        let end = tail.load(ordering: .acquiring)
        var h = head.load(ordering: .relaxed)
        let start = h
        while h != end {
            let index = h & mask
            body(tags[index], UnsafeMutableRawBufferPointer(start: storage + index * slotSize, count: Int(lengths[index])))
            h += 1
            head.store(h, ordering: .releasing)
        }
        return h - start
    }
}
