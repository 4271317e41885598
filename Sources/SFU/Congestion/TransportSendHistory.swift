/// When and how big each packet sent on one subscriber transport was, by its transport-wide
/// sequence number, so transport-cc feedback (which names only those numbers) can be turned into
/// per-packet delay and loss. A fixed ring: no allocation per packet. I/O thread only.
struct TransportSendHistory: Sendable {
    struct Record: Sendable, Equatable {
        var sequenceNumber: UInt16
        var sendTime: Int64
        var size: Int32
        var valid: Bool
    }

    private var records: [Record]
    private let mask: Int

    /// - Parameter capacity: rounded up to a power of two; 8192 covers several seconds at 10 Mbit/s.
    init(capacity: Int = 8192) {
        var size = 1
        while size < capacity { size <<= 1 }
        records = [Record](repeating: Record(sequenceNumber: 0, sendTime: 0, size: 0, valid: false), count: size)
        mask = size - 1
    }

    mutating func record(sequenceNumber: UInt16, sendTime: Int64, size: Int) {
        records[Int(sequenceNumber) & mask] = Record(sequenceNumber: sequenceNumber, sendTime: sendTime,
                                                     size: Int32(truncatingIfNeeded: size), valid: true)
    }

    /// The record of `sequenceNumber`, if still held.
    func lookup(_ sequenceNumber: UInt16) -> Record? {
        let record = records[Int(sequenceNumber) & mask]
        return record.valid && record.sequenceNumber == sequenceNumber ? record : nil
    }
}
