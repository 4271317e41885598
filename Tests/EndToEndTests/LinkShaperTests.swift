import SRTCTestSupport
import Testing

/// The test path's shaper in virtual time: what the soak's 2 % loss and 30 ms jitter really do.
@Suite struct LinkShaperTests {
    @Test func jitterDelaysWithinTheBoundAndReorders() throws {
        var shaper = LinkShaper(.init(lossRate: 0.02, jitterMilliseconds: 30), seed: 7)
        var sent: [UInt64: UInt64] = [:]
        var released: [(number: UInt64, sent: UInt64, departure: UInt64)] = []
        var now: UInt64 = 0
        for number in UInt64(0)..<2000 {
            now = number * 1000
            let passed = withUnsafeBytes(of: number) { shaper.offer($0, now: now) }
            #expect(passed == nil, "jitter holds every datagram")
            sent[number] = now
            for d in shaper.due(now: now) { released.append(Self.entry(d, sent: sent)) }
        }
        for d in shaper.due(now: now + 31_000) { released.append(Self.entry(d, sent: sent)) }

        #expect(shaper.offered == 2000)
        #expect(released.count + shaper.randomlyLost == 2000)
        #expect((20...60).contains(shaper.randomlyLost), "lost \(shaper.randomlyLost) of 2000 at 2 %")
        #expect(released.allSatisfy { $0.departure >= $0.sent && $0.departure - $0.sent <= 30_000 })
        #expect(zip(released, released.dropFirst()).allSatisfy { $0.departure <= $1.departure }, "released in departure order")
        let reordered = zip(released, released.dropFirst()).filter { $0.number > $1.number }.count
        #expect(reordered > 100, "a 30 ms jitter at 1 ms spacing reorders often (\(reordered))")
        let delays = released.map { Double($0.departure - $0.sent) }
        let mean = delays.reduce(0, +) / Double(delays.count)
        #expect(abs(mean - 15_000) < 1500, "uniform 0…30 ms delay, mean \(mean) µs")
    }

    @Test func withoutJitterOrBottleneckDatagramsPassAtOnce() {
        var shaper = LinkShaper(.init(lossRate: 0), seed: 1)
        let out = [UInt8](repeating: 9, count: 5).withUnsafeBytes { shaper.offer($0, now: 10) }
        #expect(out == [9, 9, 9, 9, 9])
        #expect(shaper.due(now: 1_000_000).isEmpty)
    }

    /// The lab relay's burst loss and fixed delay: 10 lost in a row at the start of every 100,
    /// the rest held exactly 20 ms, in order.
    @Test func burstLossDropsRunsAndDelayHoldsTheRestInOrder() {
        var shaper = LinkShaper(.init(delayMilliseconds: 20, burstLength: 10, burstPeriod: 100), seed: 3)
        var lost: [UInt64] = []
        var released: [(number: UInt64, departure: UInt64)] = []
        for number in UInt64(0)..<300 {
            let now = number * 1000
            let passed = withUnsafeBytes(of: number) { shaper.offer($0, now: now) }
            #expect(passed == nil)
            if shaper.burstLost > lost.count { lost.append(number) }
            for d in shaper.due(now: now) { released.append((d.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, d.departure)) }
        }
        for d in shaper.due(now: 400_000) { released.append((d.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, d.departure)) }
        #expect(lost == Array(0..<10) + Array(100..<110) + Array(200..<210))
        #expect(shaper.burstLost == 30 && shaper.randomlyLost == 0)
        #expect(released.map(\.number) == (0..<300).filter { $0 % 100 >= 10 })
        #expect(released.allSatisfy { $0.departure == $0.number * 1000 + 20_000 })
    }

    /// A fade loses by time from the shaper's epoch, whatever the datagram rate: two shapers with
    /// one epoch, one offered every 1 ms and one every 5 ms, lose exactly the same moments.
    @Test func fadesLoseTheSameMomentsAtAnyRate() {
        let shape = LinkShaper.Shape(fadeMilliseconds: 80, fadePeriodMilliseconds: 800)
        var dense = LinkShaper(shape, seed: 1, epoch: 10_000), sparse = LinkShaper(shape, seed: 2, epoch: 10_000)
        var denseLost: [UInt64] = [], sparseLost: [UInt64] = []
        for ms in UInt64(10)..<1610 {
            let now = ms * 1000
            if withUnsafeBytes(of: ms, { dense.offer($0, now: now) }) == nil { denseLost.append(ms) }
            if ms % 5 == 0, withUnsafeBytes(of: ms, { sparse.offer($0, now: now) }) == nil { sparseLost.append(ms) }
        }
        #expect(denseLost == Array(10..<90) + Array(810..<890))
        #expect(sparseLost == denseLost.filter { $0 % 5 == 0 })
        #expect(dense.burstLost == 160 && sparse.burstLost == 32 && dense.randomlyLost == 0)
    }

    private static func entry(_ d: (bytes: [UInt8], departure: UInt64), sent: [UInt64: UInt64]) -> (number: UInt64, sent: UInt64, departure: UInt64) {
        let number = d.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        return (number, sent[number] ?? .max, d.departure)
    }
}
