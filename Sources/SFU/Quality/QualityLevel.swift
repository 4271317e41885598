/// A connection-quality level, best first. The server maps it to the protocol's `ConnectionQuality`.
public enum QualityLevel: String, Hashable, Sendable, CaseIterable {
    case excellent, good, poor, lost
}

/// Grades one report interval from loss, round-trip time and jitter. Thresholds follow common
/// WebRTC practice: audio stays clear below ~2 % loss and 150 ms RTT, usable below ~8 % and
/// 400 ms; beyond that conversation suffers.
struct QualityClassifier: Sendable {
    var excellentLoss = 0.02, goodLoss = 0.08
    var excellentRTT = 150.0, goodRTT = 400.0
    var excellentJitter = 30.0, goodJitter = 80.0

    /// - Parameters:
    ///   - lossRate: 0…1, the worse of both directions.
    ///   - rttMs: nil when not measured yet (not counted against the level).
    ///   - heardFromPeer: false when nothing (RTP or RTCP) arrived in the whole interval.
    func level(lossRate: Double, rttMs: Double?, jitterMs: Double, heardFromPeer: Bool) -> QualityLevel {
        guard heardFromPeer else { return .lost }
        let rtt = rttMs ?? 0
        if lossRate < excellentLoss, rtt < excellentRTT, jitterMs < excellentJitter { return .excellent }
        if lossRate < goodLoss, rtt < goodRTT, jitterMs < goodJitter { return .good }
        return .poor
    }
}

/// Keeps a reported level from flapping: a newly measured level replaces the reported one only
/// after it was measured for `holdIntervals` consecutive intervals (two by default).
struct QualityHysteresis: Sendable {
    let holdIntervals: Int
    private(set) var reported: QualityLevel
    private var candidate: QualityLevel?
    private var candidateCount = 0

    init(initial: QualityLevel = .excellent, holdIntervals: Int = 2) {
        reported = initial
        self.holdIntervals = holdIntervals
    }

    /// Folds in one interval's measured level.
    /// - Returns: `(new, previous)` when the reported level changes.
    mutating func update(_ measured: QualityLevel) -> (level: QualityLevel, previous: QualityLevel)? {
        guard measured != reported else {
            candidate = nil
            candidateCount = 0
            return nil
        }
        if measured == candidate {
            candidateCount += 1
        } else {
            candidate = measured
            candidateCount = 1
        }
        guard candidateCount >= holdIntervals else { return nil }
        let previous = reported
        reported = measured
        candidate = nil
        candidateCount = 0
        return (measured, previous)
    }
}
