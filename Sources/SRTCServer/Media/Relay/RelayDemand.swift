import SRTCProtocol

/// What one relayed track is taken at across a relay, between nodes (`EdgeRelay`) or between
/// workers (`WorkerRelay`): the relay's consumer on the channel's router carries one layer for
/// every session served on the far side, the best any of them asked for. Pure value, tested
/// without a relay (`RelayDemandTests`).
struct RelayDemand: Sendable, Equatable {
    /// The track's layers, best first (empty or one: nothing to choose).
    let layers: [SimulcastLayer]
    /// The layer each session on the far side asked for (nil: the best), by session.
    private(set) var bySession: [String: String?] = [:]
    /// The index of the layer the relay's consumer was last set to.
    private var current: Int

    /// - Parameter initial: the layer the relay's consumer starts at.
    init(layers: [SimulcastLayer], initial: String?) {
        self.layers = layers
        current = 0
        current = rank(initial)
    }

    var isEmpty: Bool { bySession.isEmpty }

    func contains(session: String) -> Bool { bySession[session] != nil }

    /// `session` takes the track at `layer` (nil: the best).
    mutating func set(session: String, layer: String?) { bySession[session] = .some(layer) }

    /// `session` no longer takes the track; `false` when it did not.
    @discardableResult
    mutating func remove(session: String) -> Bool { bySession.removeValue(forKey: session) != nil }

    /// The layer to set the relay's consumer to now (its description, else its rid), when it
    /// differs from the last one set; `nil` when nothing changes or the track has one layer. A
    /// layer asked for by description, by rid or as nil (the best) is the same layer.
    mutating func change() -> String? {
        guard layers.count > 1 else { return nil }
        let wanted = bySession.values.map(rank).min() ?? 0
        guard wanted != current else { return nil }
        current = wanted
        let layer = layers[wanted]
        return layer.desc.isEmpty ? layer.rid : layer.desc
    }

    /// A layer's index, best first; nil and unknown names are the best.
    private func rank(_ layer: String?) -> Int {
        guard let layer else { return 0 }
        return layers.firstIndex { $0.desc == layer || $0.rid == layer } ?? 0
    }
}
