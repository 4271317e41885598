/// When and how big each packet sent on one subscriber transport was, by its transport-wide
/// sequence number, so transport-cc feedback (which names only those numbers) can be turned into
/// per-packet delay and loss. A fixed ring (`SequenceRing`: its owner keeps it in a `let`): no
/// allocation per packet. I/O thread only.
struct TransportSendHistory {
    struct Record: Sendable, Equatable {
        var sequenceNumber: UInt16
        var sendTime: Int64
        var size: Int32
        var valid: Bool
    }

    private let records: SequenceRing<Record>

    /// - Parameter capacity: rounded up to a power of two; 8192 covers several seconds at 10 Mbit/s.
    init(capacity: Int = 8192) {
        records = SequenceRing(capacity: capacity, empty: Record(sequenceNumber: 0, sendTime: 0, size: 0, valid: false))
    }

    @inline(__always)
    func record(sequenceNumber: UInt16, sendTime: Int64, size: Int) {
        records[sequenceNumber] = Record(sequenceNumber: sequenceNumber, sendTime: sendTime,
                                         size: Int32(truncatingIfNeeded: size), valid: true)
    }

    /// The record of `sequenceNumber`, if still held.
    func lookup(_ sequenceNumber: UInt16) -> Record? {
        let record = records[sequenceNumber]
        return record.valid && record.sequenceNumber == sequenceNumber ? record : nil
    }
}
