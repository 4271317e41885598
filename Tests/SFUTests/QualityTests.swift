import Testing
@testable import SFU

struct QualityTests {
    @Test(arguments: [
        (0.0, 50.0, 5.0, true, QualityLevel.excellent),
        (0.01, nil, 5.0, true, .excellent),
        (0.03, 50.0, 5.0, true, .good),
        (0.0, 200.0, 5.0, true, .good),
        (0.0, 50.0, 50.0, true, .good),
        (0.10, 50.0, 5.0, true, .poor),
        (0.0, 500.0, 5.0, true, .poor),
        (0.0, 50.0, 5.0, false, .lost),
    ] as [(Double, Double?, Double, Bool, QualityLevel)])
    func classifierGradesLossRTTAndJitter(loss: Double, rtt: Double?, jitter: Double, heard: Bool, level: QualityLevel) {
        #expect(QualityClassifier().level(lossRate: loss, rttMs: rtt, jitterMs: jitter, heardFromPeer: heard) == level)
    }

    @Test func aNewLevelMustHoldTwoIntervals() {
        var hysteresis = QualityHysteresis()
        let u1 = hysteresis.update(.poor)
        #expect(u1 == nil)
        let u2 = hysteresis.update(.excellent)
        #expect(u2 == nil)  // one bad interval is forgotten
        let u3 = hysteresis.update(.poor)
        #expect(u3 == nil)
        let change = hysteresis.update(.poor)
        #expect(change?.level == .poor && change?.previous == .excellent)
        #expect(hysteresis.reported == .poor)
        // Alternating levels never settle.
        let u4 = hysteresis.update(.good)
        #expect(u4 == nil)
        let u5 = hysteresis.update(.lost)
        #expect(u5 == nil)
        let u6 = hysteresis.update(.good)
        #expect(u6 == nil)
        let u7 = hysteresis.update(.poor)
        #expect(u7 == nil)
        #expect(hysteresis.reported == .poor)
    }
}
