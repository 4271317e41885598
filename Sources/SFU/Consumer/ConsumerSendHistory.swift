/// What a consumer sent under each of its sequence numbers, so a subscriber's NACK can be
/// answered by rewriting the original packet (still in the producer stream's `RTPPacketCache`) the
/// same way again, rather than by keeping a second copy per subscriber; and which numbers were
/// the probe's padding-only packets, so a NACK for one of those is answered too. A fixed ring
/// indexed by the outgoing sequence number (`SequenceRing`: its owner keeps it in a `let`).
struct ConsumerSendHistory {
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
        /// The marker was set on it (VP9: the end of the picture for this subscriber).
        var setMarker = false
        /// Its Dependency Descriptor was written with these active decode targets (AV1 SVC).
        var descriptorMask: UInt32 = 0
        var rewritesDescriptor = false
        /// A probe's padding-only packet (`Consumer.sendPadding`): nothing of it is cached; a NACK
        /// for it is answered with padding again (`Consumer.resendPadding`).
        var isPadding = false
    }

    private let records: SequenceRing<Record>

    init(capacity: Int = 1024) {
        records = SequenceRing(capacity: capacity, empty: Record(outSequence: 0, inSequence: 0, layer: 0, valid: false,
                                                                 outTimestamp: 0, pictureIDDelta: 0, tl0Delta: 0, lastSent: 0))
    }

    @inline(__always)
    func record(_ record: Record) {
        records[record.outSequence] = record
    }

    func lookup(_ outSequence: UInt16) -> Record? {
        let record = records[outSequence]
        return record.valid && record.outSequence == outSequence ? record : nil
    }

    func markResent(_ outSequence: UInt16, at now: Int64) {
        var record = records[outSequence]
        guard record.outSequence == outSequence else { return }
        record.lastSent = now
        record.resendCount &+= 1
        records[outSequence] = record
    }
}
