/// Chooses the simulcast layer of every simulcast consumer on one subscriber transport.
///
/// Without a bandwidth estimate each consumer gets its preferred layer (or the nearest active
/// one). With an estimate, every consumer first gets its lowest active layer (video never stops
/// for lack of bandwidth), then consumers are raised one layer at a time, round robin, toward their
/// preferred layer while the budget covers the extra bitrate. Raising a consumer above the layer it
/// is on needs `upgradeHeadroom` times the extra, keeping it needs only the extra: that gap is the
/// hysteresis that stops a consumer from flapping between two layers on a noisy estimate.
///
/// Layers are spatial indices, 0 the lowest.
struct LayerAllocator: Sendable {
    struct Demand: Sendable, Equatable {
        /// The subscriber's choice.
        var preferred: Int
        /// The layer being forwarded now, if any.
        var current: Int?
        /// Measured bitrate of each layer, bits per second; 0 marks a layer not being received.
        var layerBitrates: [Int]
        /// True right after a bandwidth downgrade: no bandwidth-driven raise above `current`.
        var holdUpgrade = false
    }

    var upgradeHeadroom = 1.15

    /// One target per demand; nil when none of its layers is active.
    /// - Parameter budget: bits per second available for these consumers; nil when unknown.
    func allocate(budget: Int?, demands: [Demand]) -> [Int?] {
        var targets: [Int?] = demands.map { Self.lowestActive($0) }
        guard let budget else {
            return demands.map { Self.ceiling($0) }
        }
        var remaining = budget
        for (index, demand) in demands.enumerated() {
            if let layer = targets[index] { remaining -= demand.layerBitrates[layer] }
        }
        var changed = true
        while changed {
            changed = false
            for (index, demand) in demands.enumerated() {
                guard let layer = targets[index], var cap = Self.ceiling(demand) else { continue }
                if demand.holdUpgrade, let current = demand.current { cap = min(cap, max(current, layer)) }
                guard let next = Self.nextActive(demand, above: layer), next <= cap else { continue }
                let extra = demand.layerBitrates[next] - demand.layerBitrates[layer]
                let keeping = (demand.current ?? -1) >= next
                let need = keeping ? extra : Int((Double(extra) * upgradeHeadroom).rounded(.up))
                guard remaining >= need else { continue }
                targets[index] = next
                remaining -= extra
                changed = true
            }
        }
        return targets
    }

    /// The highest active layer at or below the preferred one, else the lowest active above it.
    static func ceiling(_ demand: Demand) -> Int? {
        let rates = demand.layerBitrates
        let top = min(demand.preferred, rates.count - 1)
        if top >= 0 {
            for layer in stride(from: top, through: 0, by: -1) where rates[layer] > 0 { return layer }
        }
        return rates.indices.first { $0 > top && rates[$0] > 0 }
    }

    static func lowestActive(_ demand: Demand) -> Int? {
        demand.layerBitrates.indices.first { demand.layerBitrates[$0] > 0 }
    }

    static func nextActive(_ demand: Demand, above layer: Int) -> Int? {
        demand.layerBitrates.indices.first { $0 > layer && demand.layerBitrates[$0] > 0 }
    }
}
