import Testing
@testable import SFU

struct LayerAllocatorTests {
    typealias Demand = LayerAllocator.Demand
    let allocator = LayerAllocator()

    @Test func withoutAnEstimateEveryoneGetsThePreferredLayer() {
        let demands = [Demand(preferred: 1, current: nil, layerBitrates: [300_000, 1_500_000]),
                       Demand(preferred: 0, current: nil, layerBitrates: [300_000, 1_500_000]),
                       Demand(preferred: 1, current: nil, layerBitrates: [300_000, 0])]
        #expect(allocator.allocate(budget: nil, demands: demands) == [1, 0, 0])
    }

    @Test func aLowEstimateDowngradesAndTheLowestLayerAlwaysFlows() {
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
        // Right after a downgrade no raise, whatever the budget.
        var held = raising
        held.holdUpgrade = true
        #expect(allocator.allocate(budget: 10_000_000, demands: [held]) == [0])
    }

    @Test func budgetIsSharedRoundRobin() {
        let demand = Demand(preferred: 2, current: nil, layerBitrates: [150_000, 500_000, 1_500_000])
        // Both start at 150k; both rise to 500k (+350k each, 402.5k with headroom); 2.5M then lifts only the first to 1.5M.
        #expect(allocator.allocate(budget: 1_600_000, demands: [demand, demand]) == [1, 1])
        #expect(allocator.allocate(budget: 2_500_000, demands: [demand, demand]) == [2, 1])
    }
}
