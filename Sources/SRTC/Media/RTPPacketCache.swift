/// The last packets one RTP stream sent, by sequence number, to answer NACKs (RFC 4585 §6.2.1)
/// without reallocating: a ring of fixed-size slots written in place.
struct RTPPacketCache {
    /// Largest packet kept (the send path stays under the path MTU).
    static let slotSize = 1_400

    private var storage: [UInt8]
    private var lengths: [Int]
    private var sequences: [UInt16]
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage = [UInt8](repeating: 0, count: self.capacity * Self.slotSize)
        lengths = [Int](repeating: 0, count: self.capacity)
        sequences = [UInt16](repeating: 0, count: self.capacity)
    }

    /// Lets `write` fill the slot of `sequenceNumber` (returning the packet length, nil to cancel).
    @discardableResult
    mutating func store(_ sequenceNumber: UInt16, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        let index = Int(sequenceNumber) % capacity
        let start = index * Self.slotSize
        let length = storage.withUnsafeMutableBytes { all in
            write(UnsafeMutableRawBufferPointer(rebasing: all[start ..< start + Self.slotSize]))
        }
        lengths[index] = length ?? 0
        sequences[index] = sequenceNumber
        return length
    }

    /// Calls `body` with the packet `sequenceNumber` when it is still held.
    func withPacket<R>(_ sequenceNumber: UInt16, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let index = Int(sequenceNumber) % capacity
        guard sequences[index] == sequenceNumber, lengths[index] > 0 else { return nil }
        let start = index * Self.slotSize
        return storage.withUnsafeBytes { all in body(UnsafeRawBufferPointer(rebasing: all[start ..< start + lengths[index]])) }
    }
}
