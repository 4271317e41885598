import Foundation
import RTCNet
import Synchronization
import Testing
import TestWait
@testable import SFU

/// The SFU's timers run on the media port's own tick (no timer thread posting to the I/O thread).
@Suite struct WorkerTickTests {
    /// Issue #8: each tick used to call through two more thunks than the last, so an idle
    /// server's stack and CPU grew until it crashed. The tick handler is stored once and called
    /// as it is: the hundredth tick is as shallow as the tenth.
    @Test func theHundredthTickIsAsShallowAsTheTenth() async throws {
        let worker = try SFUWorker(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { worker.stop() }
        let probe = Mutex<(ticks: Int, tenth: Int, hundredth: Int)>((0, 0, 0))
        worker.port.setTickHandler { _ in
            probe.withLock {
                $0.ticks += 1
                if $0.ticks == 10 { $0.tenth = Thread.callStackReturnAddresses.count }
                if $0.ticks == 100 { $0.hundredth = Thread.callStackReturnAddresses.count }
            }
        }
        try await eventually("100 port ticks") { probe.withLock { $0.ticks >= 100 } }
        let depths = probe.withLock { ($0.tenth, $0.hundredth) }
        #expect(depths.0 > 0 && depths.0 < 100)
        #expect(depths.1 == depths.0)
    }

    /// The core's timers run at `tickInterval` from the port's 10 ms tick: due once per interval.
    @Test func timersRunOncePerIntervalWhateverTheTickRate() {
        var configuration = SFUConfiguration()
        configuration.tickInterval = .milliseconds(20)
        let core = SFUCore(configuration: configuration)
        var runs = 0
        var now: Int64 = 1_000_000
        for _ in 0..<100 {
            if core.tickIfDue(now: now) { runs += 1 }
            now += 10_000 // the port's 10 ms
        }
        #expect(runs == 50)
    }
}
