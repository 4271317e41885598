/// A fixed ring of records indexed by a 16-bit sequence number (its low bits), allocated once:
/// a read or a write is one load or store. The send histories keep one record per forwarded
/// packet here; as an `Array` each write first checked that the buffer was not shared (a call
/// into the runtime, twice per forwarded copy: 2 % of the media thread at 1→50).
///
/// A reference: a value holding one shares its slots when copied, so its holders keep it in one
/// place (a `let` of the object that owns the history). I/O thread only.
final class SequenceRing<Record> {
    private let slots: UnsafeMutablePointer<Record>
    private let mask: Int

    /// - Parameter capacity: rounded up to a power of two (at most 65 536: one slot per number).
    init(capacity: Int, empty: Record) {
        var size = 1
        while size < min(capacity, 1 << 16) { size <<= 1 }
        slots = .allocate(capacity: size)
        slots.initialize(repeating: empty, count: size)
        mask = size - 1
    }

    deinit {
        slots.deinitialize(count: mask + 1)
        slots.deallocate()
    }

    /// The slot `sequenceNumber` maps to (shared with every number equal in its low bits).
    subscript(sequenceNumber: UInt16) -> Record {
        @inline(__always) get { slots[Int(sequenceNumber) & mask] }
        @inline(__always) set { slots[Int(sequenceNumber) & mask] = newValue }
    }
}
