import SFU
import SRTCProtocol

/// The tracks one relay carries (between nodes, `EdgeRelay`; between workers, `WorkerRelay`),
/// each with the relay's consumer on the channel's router and the layers the far sessions asked
/// for (`RelayDemand`). A pure value: each change returns what the relay must do on the SFU.
struct RelayedTracks: Sendable {
    /// What the relay does on the channel's router after a change.
    enum Action: Equatable, Sendable {
        /// Set the relay consumer's preferred layer (description or rid).
        case setLayer(ConsumerID, String)
        /// No far session takes the track any more: close its consumer (and the far producer).
        case stop(ConsumerID)
    }

    private struct Track: Sendable {
        let consumer: ConsumerID
        var demand: RelayDemand
    }
    private var tracks: [String: Track] = [:]

    /// Whether the relay carries `trackId` already.
    func carries(_ trackId: String) -> Bool { tracks[trackId] != nil }

    /// The relay's consumers, one per track carried.
    var consumers: [ConsumerID] { tracks.values.map(\.consumer) }

    /// The relay now carries `trackId` with `consumer`, started at `initial`.
    mutating func start(_ trackId: String, consumer: ConsumerID, layers: [SimulcastLayer], initial: String?) {
        tracks[trackId] = Track(consumer: consumer, demand: RelayDemand(layers: layers, initial: initial))
    }

    /// `session` takes `trackId` (carried) at `layer`, or now at `layer` when it took it already.
    mutating func take(_ trackId: String, session: String, layer: String?) -> Action? {
        guard tracks[trackId] != nil else { return nil }
        tracks[trackId]?.demand.set(session: session, layer: layer)
        return layerChange(trackId)
    }

    /// `session`, which takes `trackId`, asks for `layer`; nothing when it does not take it.
    mutating func setLayer(_ trackId: String, session: String, layer: String?) -> Action? {
        guard tracks[trackId]?.demand.contains(session: session) == true else { return nil }
        return take(trackId, session: session, layer: layer)
    }

    /// `session` no longer takes `trackId`: the last one stops the track's relay (forgotten here).
    mutating func release(_ trackId: String, session: String) -> Action? {
        guard let track = tracks[trackId], tracks[trackId]?.demand.remove(session: session) == true else { return nil }
        guard tracks[trackId]?.demand.isEmpty == true else { return layerChange(trackId) }
        tracks[trackId] = nil
        return .stop(track.consumer)
    }

    /// The tracks `session` takes.
    func trackIds(takenBy session: String) -> [String] {
        tracks.filter { $0.value.demand.contains(session: session) }.map(\.key)
    }

    /// Forgets every track; returns their consumers.
    mutating func removeAll() -> [ConsumerID] {
        defer { tracks = [:] }
        return consumers
    }

    private mutating func layerChange(_ trackId: String) -> Action? {
        guard let track = tracks[trackId], let layer = tracks[trackId]?.demand.change() else { return nil }
        return .setLayer(track.consumer, layer)
    }
}
