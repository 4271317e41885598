/// What a consumer sent under each of its sequence numbers, so a subscriber's NACK can be
/// answered by rewriting the original packet (still in the producer stream's `RTPPacketCache`) the
/// same way again, rather than by keeping a second copy per subscriber. A fixed ring indexed by
/// the outgoing sequence number.
struct ConsumerSendHistory: Sendable {
    struct Record: Sendable, Equatable {
        var outSequence: UInt16
        var inSequence: UInt16
        /// The producer stream (spatial index) the packet came from.
        var layer: UInt8
        var valid: Bool
        var outTimestamp: UInt32
        var pictureIDDelta: UInt16
        var tl0Delta: UInt8
        /// Last time it was sent or resent, µs.
        var lastSent: Int64
        /// Times it was resent.
        var resendCount: UInt8 = 0
    }

    private var records: [Record]
    private let mask: Int

    init(capacity: Int = 1024) {
        var size = 1
        while size < capacity { size <<= 1 }
        records = [Record](repeating: Record(outSequence: 0, inSequence: 0, layer: 0, valid: false, outTimestamp: 0,
                                             pictureIDDelta: 0, tl0Delta: 0, lastSent: 0), count: size)
        mask = size - 1
    }

    @inline(__always)
    mutating func record(_ record: Record) {
        records[Int(record.outSequence) & mask] = record
    }

    func lookup(_ outSequence: UInt16) -> Record? {
        let record = records[Int(outSequence) & mask]
        return record.valid && record.outSequence == outSequence ? record : nil
    }

    mutating func markResent(_ outSequence: UInt16, at now: Int64) {
        let index = Int(outSequence) & mask
        if records[index].outSequence == outSequence {
            records[index].lastSent = now
            records[index].resendCount &+= 1
        }
    }
}
