import Testing
@testable import SFU

/// The allocation rules alone: budget in, one target per consumer out (costs without overhead,
/// so the numbers read as they are).
struct LayerAllocatorTests {
    typealias Demand = LayerAllocator.Demand
    let allocator = LayerAllocator(configuration: { var c = LayerAllocator.Configuration(); c.overhead = 0; return c }())

    @Test func withoutAnEstimateEveryoneGetsThePreferredLayer() {
        let demands = [Demand(preferred: 1, current: nil, layerBitrates: [300_000, 1_500_000]),
                       Demand(preferred: 0, current: nil, layerBitrates: [300_000, 1_500_000]),
                       Demand(preferred: 1, current: nil, layerBitrates: [300_000, 0])]
        #expect(allocator.allocate(budget: nil, demands: demands) == [1, 0, 0])
    }

    @Test func aLowBudgetPicksALowerLayerAndTheLowestLayerAlwaysFlows() {
        let demand = Demand(preferred: 1, current: 1, layerBitrates: [300_000, 1_500_000])
        #expect(allocator.allocate(budget: 2_000_000, demands: [demand]) == [1])
        #expect(allocator.allocate(budget: 1_000_000, demands: [demand]) == [0])
        #expect(allocator.allocate(budget: 100_000, demands: [demand]) == [0])
    }

    @Test func raisingNeedsHeadroomButKeepingDoesNot() {
        // Extra for layer 1 is 1.2 Mbit/s; budget 1.5 + 0.3 exactly covers keeping it.
        let keeping = Demand(preferred: 1, current: 1, layerBitrates: [300_000, 1_500_000])
        let raising = Demand(preferred: 1, current: 0, layerBitrates: [300_000, 1_500_000])
        #expect(allocator.allocate(budget: 1_500_000, demands: [keeping]) == [1])
        #expect(allocator.allocate(budget: 1_500_000, demands: [raising]) == [0])
        #expect(allocator.allocate(budget: 1_680_000, demands: [raising]) == [1])
    }

    @Test func budgetIsSharedRoundRobin() {
        let demand = Demand(preferred: 2, current: nil, layerBitrates: [150_000, 500_000, 1_500_000])
        // Both start at 150k; both rise to 500k (+350k each, 402.5k with headroom); 2.5M then lifts only the first to 1.5M.
        #expect(allocator.allocate(budget: 1_600_000, demands: [demand, demand]) == [1, 1])
        #expect(allocator.allocate(budget: 2_500_000, demands: [demand, demand]) == [2, 1])
    }

    @Test func aHeldLayerPastTheMeasuredOnesCountsAsNoneHeld() {
        // A VP9 consumer that asked for spatial layer 2 before the producer's packets showed it.
        var allocator = self.allocator
        let demand = Demand(preferred: 2, current: 2, layerBitrates: [150_000, 500_000])
        for second in 0 ..< 4 {
            let decision = allocator.update(now: Int64(second) * 1_000_000, signals: .init(estimate: 2_000_000), demands: [demand])
            #expect(decision.targets == [1])
        }
    }

    @Test func aLayerCostsItsMeasuredRatePlusOverhead() {
        let allocator = LayerAllocator()
        let demand = Demand(preferred: 1, current: 1, layerBitrates: [100_000, 500_000])
        #expect(allocator.cost(demand, 1) == 540_000)
        #expect(allocator.allocate(budget: 540_000, demands: [demand]) == [1])
        #expect(allocator.allocate(budget: 539_999, demands: [demand]) == [0])
    }
}
