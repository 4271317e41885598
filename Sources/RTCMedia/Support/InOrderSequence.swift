// Arrival bookkeeping of the in-order frame assemblers (VP8, H.264): which packets went missing
// between two that arrived, and which arrivals are repeats or older ones to ignore.

import RTCWire

/// Tracks the last RTP sequence number of an in-order stream.
struct InOrderSequence: Sendable {
    private var last: UInt16?

    /// Records `sequenceNumber`: the number of packets missing just before it, or `nil` for a
    /// repeated or older packet (which an in-order assembler cannot place).
    mutating func advance(to sequenceNumber: UInt16) -> Int? {
        var lost = 0
        if let last {
            let step = SequenceNumber.distance(from: last, to: sequenceNumber)
            guard step > 0 else { return nil }
            lost = step - 1
        }
        last = sequenceNumber
        return lost
    }
}
