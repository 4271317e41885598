/// Maps a stream's RTP timestamps to this machine's monotonic clock (microseconds), so recorded
/// streams share one timeline: anchored at the first frame's arrival, then following the RTP
/// clock (smooth, free of network jitter), re-anchored on arrival when the two disagree by more
/// than `maxDriftUs`: after an outage, a new SSRC from a reconnected publisher, or a sender clock
/// jump. Wrap-aware (32-bit RTP timestamps, RFC 3550 §5.1). A value type without I/O.
public struct MediaClock: Sendable, Equatable {
    public let clockRate: Int
    public var maxDriftUs: Int64 = 500_000
    private var anchorTicks: Int64 = 0
    private var anchorUs: Int64 = 0
    /// The last timestamp, unwrapped to 64 bits.
    private var lastTicks: Int64?
    private var lastRTP: UInt32 = 0

    public init(clockRate: Int) {
        self.clockRate = max(1, clockRate)
    }

    /// The time of a frame with `rtpTimestamp` that arrived at `arrivalUs`.
    public mutating func time(rtpTimestamp: UInt32, arrivalUs: Int64) -> Int64 {
        let ticks: Int64
        if let lastTicks {
            ticks = lastTicks + Int64(Int32(bitPattern: rtpTimestamp &- lastRTP))
        } else {
            ticks = 0
            anchor(ticks: 0, at: arrivalUs)
        }
        lastTicks = ticks
        lastRTP = rtpTimestamp
        var t = anchorUs + (ticks - anchorTicks) * 1_000_000 / Int64(clockRate)
        if abs(t - arrivalUs) > maxDriftUs {
            anchor(ticks: ticks, at: arrivalUs)
            t = arrivalUs
        }
        return t
    }

    private mutating func anchor(ticks: Int64, at us: Int64) {
        anchorTicks = ticks
        anchorUs = us
    }
}
