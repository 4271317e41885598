import Foundation

/// Releases decoded media at the pace of its timestamps: a pulled file is read far faster than
/// real time, and a pushed stream arrives in bursts. The first timestamp is anchored to the
/// wall clock; a jump of more than `maxDriftUs` either way (a new segment, a restarted encoder,
/// an input that fell behind) re-anchors instead of stalling or rushing.
struct IngressPacer {
    static let maxDriftUs: Int64 = 3_000_000
    private var anchor: (mediaUs: Int64, wallUs: Int64)?

    /// Sleeps until media time `timestampUs` is due (returns at once without a timestamp).
    mutating func wait(until timestampUs: Int64?, stopped: () -> Bool) {
        guard let timestampUs else { return }
        let now = Self.nowUs()
        guard let anchor else {
            self.anchor = (timestampUs, now)
            return
        }
        let due = anchor.wallUs + (timestampUs - anchor.mediaUs)
        if due - now > Self.maxDriftUs || now - due > Self.maxDriftUs {
            self.anchor = (timestampUs, now)
            return
        }
        var remaining = due - now
        while remaining > 0 && !stopped() {
            usleep(UInt32(min(remaining, 100_000)))
            remaining = due - Self.nowUs()
        }
    }

    static func nowUs() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000) }
}
