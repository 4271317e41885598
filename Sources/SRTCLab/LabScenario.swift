import Foundation
import SRTCCore
import SRTCProtocol

/// The network lab's scenarios (issue 26; docs/network.md, "The lab"), each run on a `LabCall`
/// and returning what it measured. The tests (`NetworkLab*Tests`) check the figures against the
/// issue's bounds; `srtc-bench lab` prints them as a table. One copy of each scenario for both.
public enum LabScenario {
    /// Audio is Opus in 20 ms packets: 50 a second; the issue asks for 48 throughout.
    public static let minimumAudioRate = 48.0

    /// Unlimited, then a rate limit toward the subscriber, then unlimited again.
    public struct Adaptation: Sendable, CustomStringConvertible {
        public var unlimitedSeconds: Double
        public var limitedRate: Int
        /// Frames of 640×360 decoded during the first unlimited phase.
        public var bigFrames: Int
        /// Switches for bandwidth during the first unlimited phase (none expected).
        public var unlimitedSwitches: [LabObserver.Switch]
        /// Seconds from the limit to `layer_switched` camera_small.
        public var down: Double
        /// Seconds from the limit's removal to `layer_switched` camera_big, and to its first frame.
        public var up: Double
        public var firstBigFrame: Double
        public var switches: [LabObserver.Switch]
        /// The tbf's counters at the end of the limited phase.
        public var queue: String
        /// Video delay, push to decode (`LabCall.videoDelays`), ms: median over the unlimited
        /// phase; the worst while limited; the median and the lowest over the limited phase's
        /// last 3 s. After the switch down the link's queue should have drained (no growing
        /// delay): a standing queue keeps even the lowest delay high (CoDel's test, RFC 8289
        /// §3.2), where a probe's burst only raises some frames' delay for a moment.
        public var delayUnlimited: Double
        public var delayLimitedWorst: Double
        public var delayLimitedEnd: Double
        public var delayLimitedEndLowest: Double

        public var description: String {
            """
            network lab: unlimited \(fmt(unlimitedSeconds)) s: \(bigFrames) frames of 640×360, \(unlimitedSwitches.count) bandwidth switches
              \(limitedRate / 1000) kbit/s: layer_switched camera_small \(fmt(down)) s after the limit
              unlimited again: layer_switched camera_big \(fmt(up)) s after, first 640×360 frame \(fmt(firstBigFrame)) s after
              switches: \(switches.map(\.description).joined(separator: ", "))
              video delay (push to decode): median \(fmt(delayUnlimited)) ms unlimited, worst \(fmt(delayLimitedWorst)) ms limited, median \(fmt(delayLimitedEnd)) ms and lowest \(fmt(delayLimitedEndLowest)) ms over the limit's last 3 s
              tbf: \(queue)
            """
        }
    }

    /// The median of `values` (0 when empty).
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }

    /// Runs `Adaptation` on `call` (its big layer must not be up yet: this waits for it).
    public static func adaptation(_ call: LabCall, unlimitedSeconds: Double = 12, limitedRate: Int = 250_000,
                                  limitedSeconds: Double = 10) async throws -> Adaptation {
        let observer = call.observer
        try await call.waitForBigFrames()
        let unlimitedStart = observer.elapsed
        try await Task.sleep(for: .seconds(unlimitedSeconds))
        let firstPhase = observer.switches.filter { $0.cause == "bandwidth" }
        let bigFrames = observer.frameCount(from: unlimitedStart, to: observer.elapsed, width: 640)

        let limitedAt = observer.elapsed
        try call.limitDownlink(limitedRate)
        let (down, _) = try await observer.switched(since: limitedAt, to: TrackDescName.cameraSmall, width: 160, timeout: 10)
        let remaining = limitedSeconds - (observer.elapsed - limitedAt)
        if remaining > 0 { try await Task.sleep(for: .seconds(remaining)) }
        let queue = call.downlinkQueue
        let limitedEnd = observer.elapsed
        let delayUnlimited = median(call.videoDelays(from: unlimitedStart, to: limitedAt))
        let delayLimitedWorst = call.videoDelays(from: limitedAt, to: limitedEnd).max() ?? 0
        let endDelays = call.videoDelays(from: limitedEnd - 3, to: limitedEnd)

        let restoredAt = observer.elapsed
        try call.limitDownlink(nil)
        let (up, bigAgain) = try await observer.switched(since: restoredAt, to: TrackDescName.cameraBig, width: 640, timeout: 25)
        return Adaptation(unlimitedSeconds: unlimitedSeconds, limitedRate: limitedRate, bigFrames: bigFrames, unlimitedSwitches: firstPhase,
                          down: down.time - limitedAt, up: up.time - restoredAt, firstBigFrame: bigAgain - restoredAt,
                          switches: observer.switches, queue: queue, delayUnlimited: delayUnlimited,
                          delayLimitedWorst: delayLimitedWorst, delayLimitedEnd: median(endDelays),
                          delayLimitedEndLowest: endDelays.min() ?? 0)
    }
}
