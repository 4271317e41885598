import Testing
@testable import SFU

/// The allocation on a scalable stream's ladder of (spatial, temporal) steps (L3T3: index
/// `spatial * 3 + temporal`): a short budget drops temporal layers (frame rate) of the spatial
/// layer before it drops the spatial layer, as LiveKit's allocator does. Costs without overhead.
struct LayerAllocatorTemporalTests {
    typealias Demand = LayerAllocator.Demand
    let allocator = LayerAllocator(configuration: { var c = LayerAllocator.Configuration(); c.overhead = 0; return c }())

    /// What a VP9 L3T3 subscriber receives at each step (the lower spatial layers included), bits/s.
    static let ladder = [100_000, 150_000, 200_000,      // S0 at 7.5, 15, 30 fps
                         350_000, 500_000, 600_000,      // S1
                         900_000, 1_300_000, 1_600_000]  // S2

    static func big(current: Int? = 8) -> Demand {
        Demand(preferred: 8, current: current, layerBitrates: ladder, temporalLayers: 3)
    }

    @Test func aShortBudgetKeepsTheSpatialLayerAtALowerFrameRate() {
        #expect(allocator.allocate(budget: 2_000_000, demands: [Self.big()]) == [8])   // S2T2: 30 fps
        #expect(allocator.allocate(budget: 1_400_000, demands: [Self.big()]) == [7])   // S2T1: 15 fps, not S1
        #expect(allocator.allocate(budget: 1_000_000, demands: [Self.big()]) == [6])   // S2T0: 7.5 fps
        #expect(allocator.allocate(budget: 700_000, demands: [Self.big()]) == [5])     // S1T2: the next spatial layer down
        #expect(allocator.allocate(budget: 120_000, demands: [Self.big()]) == [0])     // S0T0 before a pause
    }

    @Test func aSmallPreferenceIsCappedAtItsTopFrameRate() {
        let small = Demand(preferred: 2, current: nil, layerBitrates: Self.ladder, temporalLayers: 3)
        #expect(allocator.allocate(budget: 5_000_000, demands: [small]) == [2])
        #expect(allocator.allocate(budget: nil, demands: [small]) == [2])
    }

    @Test func raisingPassesAStepThatDoesNotFitForAHigherSpatialLayerThatDoes() {
        // S1 at 30 fps costs more than S2 at 7.5 fps: with 700 kbit/s the raise from S1T1 skips S1T2
        // (+300k with headroom does not fit in the 200k left) and takes S2T0 (+150k, 172.5k).
        let rates = [100_000, 150_000, 200_000, 350_000, 500_000, 800_000, 650_000, 1_300_000, 1_600_000]
        let demand = Demand(preferred: 8, current: nil, layerBitrates: rates, temporalLayers: 3)
        #expect(allocator.allocate(budget: 700_000, demands: [demand]) == [6])
        // A simulcast demand (no temporal ladder) stops at the first layer that does not fit.
        let simulcast = Demand(preferred: 8, current: nil, layerBitrates: rates)
        #expect(allocator.allocate(budget: 700_000, demands: [simulcast]) == [4])
    }

    @Test func aTemporalLayerMissingAtTheTopIsSkipped() {
        // S2 sends only T0 and T1 (its T2 not received): the ceiling is S2T1.
        var rates = Self.ladder
        rates[8] = 0
        let demand = Demand(preferred: 8, current: nil, layerBitrates: rates, temporalLayers: 3)
        #expect(allocator.allocate(budget: nil, demands: [demand]) == [7])
        #expect(allocator.allocate(budget: 5_000_000, demands: [demand]) == [7])
    }

    @Test func overTimeTheHeldBigLayerDropsToHalfFrameRateAfterTheHoldNotToTheMediumLayer() {
        var allocator = self.allocator
        var targets: [Int?] = []
        var current: Int? = 8
        for step in 0 ... 50 {  // 5 s at 100 ms
            let decision = allocator.update(now: Int64(step) * 100_000, signals: .init(estimate: 1_400_000),
                                            demands: [Self.big(current: current)])
            targets.append(decision.targets[0])
            current = decision.targets[0]
            #expect(decision.paused == [false])
        }
        // The grace after the first estimate (3 s), then the hold (1.5 s, counted from the start).
        #expect(targets.prefix(30).allSatisfy { $0 == 8 })
        #expect(targets.last == 7)
        #expect(Set(targets.compactMap { $0 }) == [8, 7])
    }
}
