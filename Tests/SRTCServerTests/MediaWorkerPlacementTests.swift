import Testing
@testable import SRTCServer

/// Where a new channel goes: the worker forwarding the fewest packets per second; on a tie fewer
/// transports, then fewer routers, then the lowest index.
struct MediaWorkerPlacementTests {
    typealias Load = MediaWorkerPlacement.Load

    static let cases: [(loads: [Load], chosen: Int, why: String)] = [
        ([], 0, "no workers: the first"),
        ([Load(forwardedPerSecond: 0, transports: 0, routers: 0)], 0, "one worker"),
        ([Load(forwardedPerSecond: 0, transports: 0, routers: 0), Load(forwardedPerSecond: 0, transports: 0, routers: 0)], 0,
         "all equal: the lowest index"),
        ([Load(forwardedPerSecond: 5_000, transports: 2, routers: 1), Load(forwardedPerSecond: 900, transports: 40, routers: 9)], 1,
         "packets per second decide, not counts"),
        ([Load(forwardedPerSecond: 100, transports: 4, routers: 1), Load(forwardedPerSecond: 100, transports: 3, routers: 2)], 1,
         "same rate: fewer transports"),
        ([Load(forwardedPerSecond: 0, transports: 2, routers: 2), Load(forwardedPerSecond: 0, transports: 2, routers: 1)], 1,
         "same rate and transports: fewer routers (channels placed in the same second)"),
        ([Load(forwardedPerSecond: 10, transports: 0, routers: 0), Load(forwardedPerSecond: 3, transports: 9, routers: 9),
          Load(forwardedPerSecond: 3, transports: 9, routers: 9)], 1, "a tie among the least loaded: the lowest of them"),
    ]

    @Test(arguments: cases.indices)
    func theLeastLoadedWorkerIsChosen(index: Int) {
        let c = Self.cases[index]
        #expect(MediaWorkerPlacement.choose(c.loads) == c.chosen, "\(c.why)")
    }
}
