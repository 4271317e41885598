/// The per-track receive-timeout judgment behind `channel(_:didChangeReceiveStreamStatus:)`.
///
/// After subscribing, the first decoded frame reports a recovery (`false`); no frame for
/// `timeout` seconds reports a timeout (`true`); the next frame reports a recovery again. A muted
/// track is not expected to send frames, so the clock stops while it is muted and restarts
/// (waiting for a first frame again) when it is unmuted. Times are monotonic seconds.
struct ReceiveTimeoutMonitor: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Not subscribed, or muted: no judgment.
        case inactive
        /// Subscribed (or unmuted) at `since`; no frame yet.
        case waitingFirstFrame(since: Double)
        /// Frames flow; the last one at `last`.
        case receiving(last: Double)
        /// No frame for the timeout period.
        case timedOut
    }

    /// Seconds without a frame that count as a timeout.
    let timeout: Double
    private(set) var phase: Phase = .inactive

    init(timeout: Double) {
        self.timeout = timeout
    }

    /// The value of `RemoteVideoTrack.isReceiveTimedOut`.
    var isTimedOut: Bool { phase == .timedOut }

    /// The subscription started (or the track was unmuted).
    mutating func start(now: Double) {
        phase = .waitingFirstFrame(since: now)
    }

    /// The subscription ended or the track was muted.
    mutating func stop() {
        phase = .inactive
    }

    /// A frame was decoded. Returns `false` (a recovery report) when this frame starts or restarts
    /// the flow, nil when nothing changes.
    mutating func frameArrived(now: Double) -> Bool? {
        switch phase {
        case .inactive:
            return nil
        case .receiving:
            phase = .receiving(last: now)
            return nil
        case .waitingFirstFrame, .timedOut:
            phase = .receiving(last: now)
            return false
        }
    }

    /// Called periodically. Returns `true` (a timeout report) when the period just passed without a frame.
    mutating func tick(now: Double) -> Bool? {
        switch phase {
        case .waitingFirstFrame(let since) where now - since >= timeout,
             .receiving(let since) where now - since >= timeout:
            phase = .timedOut
            return true
        default:
            return nil
        }
    }
}
