/// Which worker a new channel goes to (docs/architecture.md, "Media workers"): the least loaded
/// by forwarded packets per second, the cost that fills a thread; on a tie the one with fewer
/// transports, then fewer routers (channels placed in the same second, before their transports
/// exist), then the lowest index. A channel stays on its worker while it lives: moving one would
/// move every participant's transports to another port.
enum MediaWorkerPlacement {
    struct Load: Equatable, Sendable {
        var forwardedPerSecond: Double
        var transports: Int
        var routers: Int
    }

    /// The index of the worker to use; 0 for an empty list.
    static func choose(_ loads: [Load]) -> Int {
        var best = 0
        for index in loads.indices.dropFirst() where isLess(loads[index], than: loads[best]) { best = index }
        return best
    }

    private static func isLess(_ a: Load, than b: Load) -> Bool {
        if a.forwardedPerSecond != b.forwardedPerSecond { return a.forwardedPerSecond < b.forwardedPerSecond }
        if a.transports != b.transports { return a.transports < b.transports }
        return a.routers < b.routers
    }
}
