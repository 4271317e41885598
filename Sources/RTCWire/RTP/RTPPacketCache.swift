/// Copies of one stream's recent packets, indexed by sequence number, for answering NACKs
/// (RFC 4585 §6.2.1) without asking the source again: the SFU keeps one per received stream, the
/// SDK one per sent stream (which also sends from it).
///
/// All memory is allocated once: `capacity` slots of `slotSize` bytes. A packet goes to slot
/// `sequenceNumber mod capacity` (the capacity is a power of two, so the mapping survives the
/// 16-bit wrap), replacing whatever was there. Lookups check the stored sequence number and, when
/// asked, the age, so a stale slot never answers for a newer packet. Not thread-safe: one owner
/// (the SFU's I/O thread, or the SDK's lock).
public final class RTPPacketCache {
    public let capacity: Int
    public let slotSize: Int
    @usableFromInline let mask: Int
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let lengths: UnsafeMutablePointer<Int32>
    @usableFromInline let sequenceNumbers: UnsafeMutablePointer<UInt16>
    @usableFromInline let storedAt: UnsafeMutablePointer<Int64>

    @usableFromInline var stored = 0
    @usableFromInline var hits = 0
    @usableFromInline var misses = 0
    /// Packets stored, for stats.
    public var storedCount: Int { stored }
    /// Lookups answered, for stats.
    public var hitCount: Int { hits }
    /// Lookups that found nothing (too old, never stored, or too big to keep).
    public var missCount: Int { misses }

    /// - Parameters:
    ///   - capacity: slots, rounded up to a power of two (at least 1).
    ///   - slotSize: the largest packet kept; bigger ones are not cached.
    public init(capacity: Int, slotSize: Int = 1500) {
        var size = 1
        while size < capacity { size <<= 1 }
        self.capacity = size
        self.slotSize = slotSize
        mask = size - 1
        storage = .allocate(byteCount: size * slotSize, alignment: 16)
        lengths = .allocate(capacity: size)
        lengths.initialize(repeating: 0, count: size)
        sequenceNumbers = .allocate(capacity: size)
        sequenceNumbers.initialize(repeating: 0, count: size)
        storedAt = .allocate(capacity: size)
        storedAt.initialize(repeating: 0, count: size)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        sequenceNumbers.deallocate()
        storedAt.deallocate()
    }

    // MARK: - Storing

    /// Copies `packet` into its slot (`now` in µs, for `maxAge` lookups).
    @inlinable
    public func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16, now: Int64 = 0) {
        let index = Int(sequenceNumber) & mask
        guard packet.count <= slotSize, let source = packet.baseAddress else {
            lengths[index] = 0
            return
        }
        (storage + index * slotSize).copyMemory(from: source, byteCount: packet.count)
        lengths[index] = Int32(truncatingIfNeeded: packet.count)
        sequenceNumbers[index] = sequenceNumber
        storedAt[index] = now
        stored &+= 1
    }

    /// Lets `write` build the packet in its slot (returning its length, or nil to leave the slot
    /// empty); returns that length. The packet is then sent from the cache with `packet(…)`.
    @discardableResult
    public func store(sequenceNumber: UInt16, now: Int64 = 0, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        let index = Int(sequenceNumber) & mask
        let length = write(UnsafeMutableRawBufferPointer(start: storage + index * slotSize, count: slotSize))
        guard let length, length > 0, length <= slotSize else {
            lengths[index] = 0
            return nil
        }
        lengths[index] = Int32(truncatingIfNeeded: length)
        sequenceNumbers[index] = sequenceNumber
        storedAt[index] = now
        stored &+= 1
        return length
    }

    // MARK: - Reading

    /// The packet stored for `sequenceNumber`, if it is there and, with `maxAge`, younger than
    /// `maxAge` µs at `now`. The bytes stay valid until the slot is reused.
    @inlinable
    public func packet(sequenceNumber: UInt16, now: Int64 = 0, maxAge: Int64? = nil) -> UnsafeRawBufferPointer? {
        let index = Int(sequenceNumber) & mask
        let length = Int(lengths[index])
        guard length > 0, sequenceNumbers[index] == sequenceNumber, maxAge.map({ now - storedAt[index] <= $0 }) ?? true else {
            misses &+= 1
            return nil
        }
        hits &+= 1
        return UnsafeRawBufferPointer(start: storage + index * slotSize, count: length)
    }

    /// Forgets every packet (on a source restart).
    public func clear() {
        lengths.update(repeating: 0, count: capacity)
    }
}
