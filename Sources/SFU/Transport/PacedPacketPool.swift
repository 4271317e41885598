/// The buffers the worker's pacers hold packets in (`TransportPacer`): `capacity` slots of
/// `slotSize` bytes, shared by every transport on the worker's I/O thread and allocated on first
/// use, so a worker whose subscribers never queue costs nothing, and one whose subscribers do
/// costs at most `capacity × slotSize` (1.5 MB) however many there are. A transport that finds
/// the pool empty sends at once, unpaced. I/O thread only.
final class PacedPacketPool {
    /// Bytes of one slot: a forwarded packet before SRTP (a packet that does not fit is sent at once).
    static let slotSize = 1500
    let capacity: Int
    private var storage: UnsafeMutableRawPointer?
    /// Free slot indices, a stack (reserved to `capacity`: taking and giving never allocate).
    private var free: [Int32] = []

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    deinit { storage?.deallocate() }

    /// Slots in use now.
    var inUse: Int { storage == nil ? 0 : capacity - free.count }

    /// A free slot, or nil when all are in use.
    @inline(__always)
    func take() -> Int32? {
        if storage == nil {
            storage = .allocate(byteCount: capacity * Self.slotSize, alignment: 16)
            free.reserveCapacity(capacity)
            for index in (0 ..< capacity).reversed() { free.append(Int32(index)) }
        }
        return free.popLast()
    }

    /// Returns a slot taken with `take`.
    @inline(__always)
    func give(_ index: Int32) {
        free.append(index)
    }

    /// The bytes of slot `index`.
    @inline(__always)
    func slot(_ index: Int32) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage! + Int(index) * Self.slotSize, count: Self.slotSize)
    }
}
