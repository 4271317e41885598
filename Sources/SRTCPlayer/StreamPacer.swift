/// Plays a pulled stream in real time: maps each frame's presentation time to the wall-clock
/// moment it is due, from an anchor taken at the first frame. A jump (a discontinuity in the
/// stream, or playback falling more than `maxLagUs` behind) takes a new anchor, so a stall is
/// not followed by a burst. Times are microseconds; a value type without I/O.
struct StreamPacer: Sendable, Equatable {
    /// How far behind playback may fall before it re-anchors instead of catching up.
    var maxLagUs: Int64 = 1_000_000
    /// How far ahead a frame may be (a forward jump in the stream) before it re-anchors.
    var maxLeadUs: Int64 = 3_000_000
    private(set) var anchor: (ptsUs: Int64, wallUs: Int64)?

    /// The wall time at which the frame stamped `ptsUs` is due, seen at `nowUs`.
    mutating func dueTime(ptsUs: Int64, nowUs: Int64) -> Int64 {
        guard let anchor else {
            self.anchor = (ptsUs, nowUs)
            return nowUs
        }
        let due = anchor.wallUs + (ptsUs - anchor.ptsUs)
        if due < nowUs - maxLagUs || due > nowUs + maxLeadUs {
            self.anchor = (ptsUs, nowUs)
            return nowUs
        }
        return due
    }

    /// Forgets the anchor (a new source after a reconnect).
    mutating func reset() { anchor = nil }

    static func == (a: StreamPacer, b: StreamPacer) -> Bool {
        a.maxLagUs == b.maxLagUs && a.maxLeadUs == b.maxLeadUs && a.anchor?.ptsUs == b.anchor?.ptsUs && a.anchor?.wallUs == b.anchor?.wallUs
    }
}
