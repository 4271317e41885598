/// Where a receiver's last transport-cc feedback ended, so that the next one does not go back over
/// it (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
///
/// A feedback covers every number from its oldest to its newest arrival and reports the ones it
/// does not hold as not received (`TransportLayerCC.init(arrivals:)`). A packet that arrives after
/// the feedback covering its number went out (reordered across the boundary: a path with a few ms
/// of jitter does it several times a second) made the next feedback start at that number again and
/// report every packet of the last feedback, received then, as lost: the lab relay's 10 % of burst
/// loss read as 31–33 % in the server's 500 ms windows, above its `severeLoss`, and cut the
/// estimate under the big layer. Such a late arrival is left out instead (it stays reported lost,
/// once), as libwebrtc's receiver never moves its window back over what it reported.
public struct TransportCCWindow: Sendable {
    /// How far back a number may lie and still count as covered; further back is a new numbering
    /// (the sender restarted it), which starts the window again.
    public static let reorderSpan = 1024

    /// The first number after the last feedback's newest.
    private var next: UInt16?

    public init() {}

    /// Removes from `arrivals` those the last feedback covered and notes where this one ends.
    public mutating func dropCovered(_ arrivals: inout [TransportCCArrival]) {
        guard let anchor = next ?? arrivals.first?.sequenceNumber else { return }
        if next != nil {
            arrivals.removeAll {
                let distance = SequenceNumber.distance(from: anchor, to: $0.sequenceNumber)
                return distance < 0 && distance > -Self.reorderSpan
            }
        }
        guard let first = arrivals.first else { return }
        // The newest, measured from the window's start (or, far from it, a new numbering's first).
        let base = next.map { start in
            arrivals.contains { SequenceNumber.distance(from: start, to: $0.sequenceNumber) >= 0 } ? start : first.sequenceNumber
        } ?? anchor
        let newest = arrivals.map { SequenceNumber.distance(from: base, to: $0.sequenceNumber) }.max() ?? 0
        next = base &+ UInt16(truncatingIfNeeded: newest + 1)
    }
}
