import Foundation
import Synchronization
import Testing
@testable import SFU

/// The media timer's relay to the worker (issue #8: each tick used to call through two more
/// thunks than the last, so an idle server's stack and CPU grew until it crashed).
@Suite struct TickRelayTests {
    @Test func theTenThousandthTickIsAsShallowAsTheTenth() {
        // Return addresses only (no symbolication), and only on the two ticks compared.
        let probe = Mutex<(measure: Bool, depth: Int)>((false, 0))
        let relay = TickRelay()
        relay.set { probe.withLock { if $0.measure { $0.depth = Thread.callStackReturnAddresses.count } } }
        func tick(measuring: Bool) -> Int {
            probe.withLock { $0.measure = measuring }
            relay.fire()
            return probe.withLock { $0.depth }
        }
        for _ in 0..<9 { _ = tick(measuring: false) }
        let tenth = tick(measuring: true)
        for _ in 10..<9_999 { _ = tick(measuring: false) }
        #expect(tenth < 100)
        #expect(tick(measuring: true) == tenth)
    }
}
