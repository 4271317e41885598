import Testing
@testable import SFU

/// Below the smallest layer: the allocator pauses video (audio keeps what it needs), and a probe
/// resumes it once the link can carry the small layer again. Virtual time, one round per 500 ms.
struct LayerAllocatorPauseTests {
    typealias Demand = LayerAllocator.Demand
    typealias Signals = LayerAllocator.Signals

    /// The layers and audio (`LayerAllocatorTimeTests`).
    static let rates = LayerAllocatorTimeTests.rates
    static let audio = LayerAllocatorTimeTests.audio

    /// One consumer driven as the transport drives it: target and pause held between rounds.
    struct Call {
        var allocator = LayerAllocator()
        var now: Int64 = 0
        var target: Int? = 1
        var paused = false
        /// (time, layer) for each change; layer nil: paused.
        var changes: [(time: Int64, layer: Int?)] = []
        var lastDecision = LayerAllocator.Decision(targets: [])

        mutating func round(_ signals: Signals) {
            var signals = signals
            signals.fixed = LayerAllocatorPauseTests.audio
            let demand = Demand(id: 1, preferred: 1, current: paused ? nil : target,
                                layerBitrates: LayerAllocatorPauseTests.rates, paused: paused)
            lastDecision = allocator.update(now: now, signals: signals, demands: [demand])
            if lastDecision.paused[0] {
                if !paused { changes.append((now, nil)) }
                paused = true
            } else if let new = lastDecision.targets[0], paused || new != target {
                changes.append((now, new))
                paused = false
                target = new
            }
            now += 500_000
        }

        func time(of change: Int) -> Int64? { changes.indices.contains(change) ? changes[change].time : nil }
    }

    @Test func theBudgetPausesConsumersItCannotGiveTheirLowestLayerInOrder() {
        let allocator = LayerAllocator(configuration: { var c = LayerAllocator.Configuration(); c.overhead = 0; return c }())
        let demand = Demand(preferred: 1, current: 0, layerBitrates: [100_000, 500_000])
        #expect(allocator.allocation(budget: 250_000, demands: [demand, demand]).paused == [false, false])
        #expect(allocator.allocation(budget: 150_000, demands: [demand, demand]).paused == [false, true])
        #expect(allocator.allocation(budget: 99_999, demands: [demand]).paused == [true])
        // A paused consumer resumes only with headroom: 100k × 1.15.
        var paused = demand
        paused.paused = true
        paused.current = nil
        #expect(allocator.allocation(budget: 114_999, demands: [paused]).paused == [true])
        #expect(allocator.allocation(budget: 115_000, demands: [paused]) == ([0], [false]))
        // Without an estimate nothing pauses.
        #expect(allocator.allocation(budget: nil, demands: [demand]).paused == [false])
    }

    @Test func anEstimateBelowTheSmallLayerPausesAfterTheHold() {
        // 150 kbit/s: audio 48.6k + small 118.8k on the wire do not fit in a REMB of 140k.
        var call = Call()
        for _ in 0 ..< 20 { call.round(Signals(estimate: 700_000)) }
        let drop = call.now
        for _ in 0 ..< 6 { call.round(Signals(estimate: 140_000)) }
        #expect(call.changes.count == 1)
        #expect(call.changes.first?.layer == nil)
        #expect(call.time(of: 0).map { $0 - drop } == 1_500_000)
        print("estimate 140 kbit/s: paused \(Double((call.time(of: 0) ?? 0) - drop) / 1e6) s after the drop")
    }

    @Test func congestionLowersTheLayerAtOnceButPausesOnlyAfterTheHold() {
        var call = Call()
        for _ in 0 ..< 20 { call.round(Signals(estimate: 700_000, transportCC: true)) }
        let drop = call.now
        for _ in 0 ..< 6 { call.round(Signals(estimate: 130_000, queueDelay: 80_000, overusing: true, transportCC: true)) }
        #expect(call.changes.map(\.layer) == [0, nil])
        #expect(call.time(of: 0) == drop)
        #expect(call.time(of: 1).map { $0 - drop } == 1_500_000)
    }

    @Test func withTransportCCALowEstimatePausesOnlyWhileTheLinkShowsCongestion() {
        // After congestion on the big layer the estimate stays low for a while (it grows back
        // slowly), but the small layer flows without loss or delay: no pause.
        var call = Call()
        for _ in 0 ..< 20 { call.round(Signals(estimate: 700_000, transportCC: true)) }
        call.round(Signals(estimate: 140_000, lossRate: 0.3, queueDelay: 30_000, transportCC: true))
        #expect(call.changes.map(\.layer) == [0])
        #expect(call.lastDecision.congested)
        for _ in 0 ..< 10 { call.round(Signals(estimate: 140_000, transportCC: true)) }
        #expect(call.changes.map(\.layer) == [0])
        #expect(!call.lastDecision.congested)
        // Some queueing delay (40 ms) is not congestion yet; a standing queue (80 ms, lasting) is:
        // paused after the hold.
        for _ in 0 ..< 10 { call.round(Signals(estimate: 140_000, queueDelay: 40_000, transportCC: true)) }
        #expect(call.changes.map(\.layer) == [0])
        let strained = call.now
        for _ in 0 ..< 4 { call.round(Signals(estimate: 140_000, queueDelay: 80_000, overusing: true, transportCC: true)) }
        #expect(call.changes.map(\.layer) == [0, nil])
        #expect(call.time(of: 1).map { $0 - strained } == 1_500_000)
    }

    @Test func aDipBelowTheSmallLayerDoesNotPause() {
        var call = Call()
        call.target = 0
        for i in 0 ..< 60 { call.round(Signals(estimate: i % 3 == 0 ? 140_000 : 220_000)) }
        #expect(call.changes.isEmpty, "changed: \(call.changes)")
    }

    @Test func nothingPausesInTheStartupGrace() {
        var call = Call()
        for _ in 0 ..< 5 { call.round(Signals(estimate: 100_000)) }
        #expect(call.changes.isEmpty)
        call.round(Signals(estimate: 100_000))
        call.round(Signals(estimate: 100_000))
        #expect(call.changes.map(\.layer) == [nil])
    }

    @Test func whilePausedAProbeAsksForTheSmallLayerAndResumesWhenTheLinkIsBack() throws {
        var call = Call()
        for _ in 0 ..< 20 { call.round(Signals(estimate: 700_000, transportCC: true)) }
        // The link's queue stands (80 ms): the small layer plus audio do not fit.
        for _ in 0 ..< 4 { call.round(Signals(estimate: 120_000, queueDelay: 80_000, overusing: true, transportCC: true)) }
        #expect(call.paused)
        #expect(call.changes.map(\.layer) == [0, nil])  // congestion drops to the small layer at once
        let pausedAt = try #require(call.time(of: 1))
        // Still narrow: every probe sees delay in its first round and stops.
        var goals: [Int] = []
        for _ in 0 ..< 30 {
            let probing = call.allocator.probe != nil
            call.round(Signals(estimate: 120_000, queueDelay: probing ? 45_000 : 0, transportCC: true))
            if case .started(let goal)? = call.lastDecision.probeOutcome { goals.append(goal) }
        }
        #expect(call.paused)
        #expect(goals.count >= 2)
        // The goal resumes the small layer: audio + small × headroom, with overhead.
        let c = LayerAllocator.Configuration()
        let small = Int((Double(110_000) * (1 + c.overhead)).rounded())
        // (in steps of at most 1.5 times the estimate: 180 kbit/s first).
        let resumeGoal = Self.audio + Int((Double(small) * c.upgradeHeadroom).rounded(.up))
        #expect(goals.first == min(resumeGoal, Int(120_000 * c.probeStep)))
        #expect(call.allocator.probe == nil || call.changes.count == 2)
        // The link is back: the next probe's packets are delivered and it resumes on the small layer.
        let back = call.now
        var delivered: Int?
        var estimate = 120_000
        for _ in 0 ..< 40 {
            call.round(Signals(estimate: estimate, probeDelivered: delivered, transportCC: true))
            if let accepted = call.lastDecision.acceptedEstimate { estimate = accepted }
            delivered = call.lastDecision.probeRate
            if !call.paused { break }
        }
        #expect(!call.paused)
        #expect(call.target == 0)
        #expect(call.changes.map(\.layer) == [0, nil, 0])
        let resumed = try #require(call.time(of: 2))
        // Within the longest probe backoff plus two probe steps of the link's return.
        #expect(resumed - back <= c.maxProbeBackoff + 2_000_000)
        print("paused at \(Double(pausedAt) / 1e6) s; link back at \(Double(back) / 1e6) s; resumed \(Double(resumed - back) / 1e6) s after")
    }

    @Test func aResumeWaitsForTheHoldAfterThePause() {
        var call = Call()
        for _ in 0 ..< 20 { call.round(Signals(estimate: 700_000)) }
        for _ in 0 ..< 4 { call.round(Signals(estimate: 120_000)) }
        #expect(call.paused)
        let pausedAt = call.time(of: 0) ?? 0
        // The estimate comes back at once (a REMB receiver that still hears audio and padding).
        for _ in 0 ..< 8 { call.round(Signals(estimate: 700_000)) }
        #expect(call.changes.count == 2)
        #expect(call.time(of: 1).map { $0 - pausedAt } == LayerAllocator.Configuration().upgradeHoldAfterDowngrade)
    }
}
