import SRTCProtocol

/// What the relay tests (between nodes, between workers) read from a client's events.
enum RelayEvents {
    /// The speakers lists, in order (uids, loudest first).
    static func speakers(_ events: [ServerEvent]) -> [[String]] {
        events.compactMap { if case .activeSpeakers(let s) = $0 { s.speakers.map(\.uid) } else { nil } }
    }

    /// The layers switched to on `trackId` of `publisher`, in order.
    static func switches(_ events: [ServerEvent], trackId: String, publisher: String) -> [String] {
        events.compactMap { if case .layerSwitched(let l) = $0, l.trackId == trackId, l.uid == publisher { l.layer } else { nil } }
    }
}
