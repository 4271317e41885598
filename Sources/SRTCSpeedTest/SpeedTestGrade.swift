import SRTCCore

/// How a speed test's figures become one `SpeedTestQuality` (docs/sdk-srtc.md, "Network speed
/// test"): the worst direction decides. A grade needs every one of its bounds; bandwidth is
/// compared with what the app said it expects.
enum SpeedTestGrade {
    /// Per grade, best first: loss below, RTT below (ms), jitter below (ms), bandwidth at least
    /// this share of the expected bitrate.
    static let bounds: [(quality: SpeedTestQuality, loss: Double, rttMs: Double, jitterMs: Double, bandwidthShare: Double)] = [
        (.excellent, 0.01, 100, 20, 0.9),
        (.good, 0.03, 200, 40, 0.7),
        (.poor, 0.08, 300, 80, 0.5),
        (.bad, 0.15, 500, 150, 0.3),
    ]

    static func grade(rttMs: Double, uplink: SpeedTestLinkReport, downlink: SpeedTestLinkReport,
                      expectedUplink: Int, expectedDownlink: Int, probesReturned: Bool) -> SpeedTestQuality {
        guard probesReturned else { return .down }
        let loss = max(uplink.packetLossRate, downlink.packetLossRate)
        let jitter = max(uplink.jitterMs, downlink.jitterMs)
        let share = min(Double(uplink.bandwidth) / Double(max(expectedUplink, 1)), Double(downlink.bandwidth) / Double(max(expectedDownlink, 1)))
        for b in bounds where loss < b.loss && rttMs < b.rttMs && jitter < b.jitterMs && share >= b.bandwidthShare {
            return b.quality
        }
        return .veryBad
    }
}
