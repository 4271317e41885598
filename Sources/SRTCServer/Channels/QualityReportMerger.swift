import SRTCProtocol

/// One quality report and one quality level per participant, when two routers measure it.
///
/// A participant whose subscriptions another media worker serves (`PipedParticipantMedia`), or
/// another node (`EdgeParticipantMedia`), has its publish transport on the channel's router and
/// its subscribe transport on the serving router. Each router reports what its own transports
/// saw, every interval, and keeps its own level: without this, such a participant got two
/// `quality_report`s per interval (one with only upstream figures, one with only downstream
/// ones) and `connection_quality` events that flipped between the two routers' levels. The room
/// (another worker) and `EdgeClients` (another node) pass every report and level change through
/// here; a participant only one router measures passes unchanged and at once.
///
/// For a piped participant, the two halves of an interval are merged when both arrived. A half
/// that arrives a second time before the other (the participant has no transport on that
/// router: a viewer that never published) goes out alone, so such a participant gets one report
/// per interval, one interval late.
struct QualityReportMerger {
    /// Which router measured: the channel's, or the one that serves the participant's
    /// subscriptions on another worker or node.
    enum Source: Int { case channel, serving }

    private struct Pending {
        var halves: [QualityReport?] = [nil, nil]
        var levels: [ConnectionQuality?] = [nil, nil]
        var announced: ConnectionQuality?
        /// A serving router's report was seen: from then on halves wait for each other.
        var piped = false
    }

    private var participants: [String: Pending] = [:]

    /// The reports to send `report.uid` now (none, one, or an earlier half then nothing).
    mutating func add(_ report: QualityReport, from source: Source) -> [QualityReport] {
        var p = participants[report.uid] ?? Pending()
        defer { participants[report.uid] = p }
        if source == .serving { p.piped = true }
        guard p.piped else { return [report] }
        var out: [QualityReport] = []
        if let earlier = p.halves[source.rawValue] { out.append(earlier) }
        p.halves[source.rawValue] = report
        if let a = p.halves[0], let b = p.halves[1] {
            out = [Self.merge(a, b)]
            p.halves = [nil, nil]
        }
        return out
    }

    /// The change to broadcast, if the participant's level (the worse of its routers' levels)
    /// changed.
    mutating func add(_ change: ConnectionQualityChange, from source: Source) -> ConnectionQualityChange? {
        var p = participants[change.uid] ?? Pending()
        defer { participants[change.uid] = p }
        if source == .serving { p.piped = true }
        p.levels[source.rawValue] = change.quality
        let level = p.levels.compactMap { $0 }.min() ?? change.quality  // worse is less
        let previous = p.announced ?? change.previous
        p.announced = level
        return level == previous ? nil : ConnectionQualityChange(uid: change.uid, quality: level, previous: previous)
    }

    mutating func forget(_ uid: String) { participants[uid] = nil }

    /// Each direction summed over both routers (loss and jitter weighted by packets); the
    /// subscriber side's RTT and estimate when it has them; the worse level.
    static func merge(_ a: QualityReport, _ b: QualityReport) -> QualityReport {
        let rtts = [a.rttMs, b.rttMs].filter { $0 > 0 }
        return QualityReport(uid: a.uid, timestamp: max(a.timestamp, b.timestamp),
                             upstream: merge(a.upstream, b.upstream), downstream: merge(a.downstream, b.downstream),
                             rttMs: rtts.max() ?? 0, availableBitrateBps: b.availableBitrateBps ?? a.availableBitrateBps,
                             quality: min(a.quality, b.quality))
    }

    static func merge(_ a: LinkStats, _ b: LinkStats) -> LinkStats {
        let packets = a.packets + b.packets
        func weighted(_ x: Double, _ y: Double) -> Double {
            packets == 0 ? max(x, y) : (x * Double(a.packets) + y * Double(b.packets)) / Double(packets)
        }
        return LinkStats(bitrateBps: a.bitrateBps + b.bitrateBps, packets: packets,
                         lossRate: weighted(a.lossRate, b.lossRate), jitterMs: weighted(a.jitterMs, b.jitterMs))
    }
}
