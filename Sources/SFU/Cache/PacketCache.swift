/// Copies of one stream's recently received packets, indexed by sequence number, for answering
/// NACKs (RFC 4585 §6.2.1) without asking the publisher again.
///
/// All memory is allocated once: `capacity` slots of `slotSize` bytes. A packet goes to slot
/// `sequenceNumber mod capacity` (the capacity is a power of two, so the mapping survives the
/// 16-bit wrap), replacing whatever was there. Lookups check the stored sequence number and age,
/// so a stale slot never answers for a newer packet. I/O thread only.
final class PacketCache {
    let capacity: Int
    let slotSize: Int
    private let mask: Int
    private let storage: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int32>
    private let sequenceNumbers: UnsafeMutablePointer<UInt16>
    private let storedAt: UnsafeMutablePointer<Int64>

    /// Packets stored, for stats.
    private(set) var storedCount = 0
    /// Lookups answered, for stats.
    private(set) var hitCount = 0
    /// Lookups that found nothing (too old, never received, or too big to keep).
    private(set) var missCount = 0

    /// - Parameters:
    ///   - capacity: slots, rounded up to a power of two (at least 1).
    ///   - slotSize: the largest packet kept; bigger ones are not cached.
    init(capacity: Int, slotSize: Int = 1500) {
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

    /// Copies `packet` into its slot.
    func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16, now: Int64) {
        let index = Int(sequenceNumber) & mask
        guard packet.count <= slotSize, let source = packet.baseAddress else {
            lengths[index] = 0
            return
        }
        (storage + index * slotSize).copyMemory(from: source, byteCount: packet.count)
        lengths[index] = Int32(packet.count)
        sequenceNumbers[index] = sequenceNumber
        storedAt[index] = now
        storedCount &+= 1
    }

    /// The packet stored for `sequenceNumber`, if it is there and younger than `maxAge` µs.
    /// The bytes stay valid until the slot is reused.
    func packet(sequenceNumber: UInt16, now: Int64, maxAge: Int64 = 3_000_000) -> UnsafeRawBufferPointer? {
        let index = Int(sequenceNumber) & mask
        let length = Int(lengths[index])
        guard length > 0, sequenceNumbers[index] == sequenceNumber, now - storedAt[index] <= maxAge else {
            missCount &+= 1
            return nil
        }
        hitCount &+= 1
        return UnsafeRawBufferPointer(start: storage + index * slotSize, count: length)
    }

    /// Forgets every packet (on a source restart).
    func clear() {
        lengths.update(repeating: 0, count: capacity)
    }
}
