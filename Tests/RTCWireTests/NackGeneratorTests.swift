import Testing
@testable import RTCWire

struct NackGeneratorTests {
    @Test func aGapIsRequestedAtOnceThenEveryRoundTrip() {
        var nack = NackGenerator(maxRetries: 3, minRetryInterval: 20_000)
        for seq: UInt16 in [100, 101, 104, 105] { let gapTooLarge = nack.received(seq, now: 0); #expect(!gapTooLarge) }
        #expect(nack.missing == [102, 103])

        var due: [UInt16] = []
        let r1 = nack.poll(now: 10_000, rtt: 50_000, into: &due)
        #expect(!r1)
        #expect(due == [102, 103])
        // Within one RTT: nothing again.
        due.removeAll()
        _ = nack.poll(now: 40_000, rtt: 50_000, into: &due)
        #expect(due.isEmpty)
        // 103 arrives (retransmitted); only 102 is asked again after the RTT.
        _ = nack.received(103, now: 45_000)
        _ = nack.poll(now: 60_000, rtt: 50_000, into: &due)
        #expect(due == [102])
    }

    @Test func aPacketOutOfRetriesIsDroppedAndAsksForAKeyFrame() {
        var nack = NackGenerator(maxRetries: 2, minRetryInterval: 10)
        _ = nack.received(1, now: 0)
        _ = nack.received(3, now: 0)
        var due: [UInt16] = []
        let r2 = nack.poll(now: 100, rtt: 0, into: &due)
        #expect(!r2)
        let r3 = nack.poll(now: 200, rtt: 0, into: &due)
        #expect(!r3)
        #expect(due == [2, 2])
        let r4 = nack.poll(now: 300, rtt: 0, into: &due)
        #expect(r4)
        #expect(nack.missing.isEmpty)
    }

    @Test func gapsAcrossTheWrapAndHugeGaps() {
        var nack = NackGenerator(maxEntries: 8)
        _ = nack.received(65534, now: 0)
        _ = nack.received(1, now: 0)
        #expect(nack.missing == [65535, 0])
        // A gap larger than the list: give up on NACK, ask for a key frame.
        let r5 = nack.received(100, now: 0)
        #expect(r5)
        #expect(nack.missing.isEmpty)
    }

    @Test func aKeyFrameClearsOlderMissingPackets() {
        var nack = NackGenerator()
        _ = nack.received(10, now: 0)
        _ = nack.received(20, now: 0)
        nack.keyFrameReceived(at: 15)
        #expect(nack.missing == [15, 16, 17, 18, 19])
    }

    @Test func reorderedPacketsLeaveTheListAndKeepItSortedAcrossTheWrap() {
        var nack = NackGenerator()
        _ = nack.received(65530, now: 0)
        _ = nack.received(3, now: 0)
        #expect(nack.missing == [65531, 65532, 65533, 65534, 65535, 0, 1, 2])
        // Late arrivals on both sides of the wrap, out of order: only those leave.
        for seq: UInt16 in [1, 65532, 65535] { let gapTooLarge = nack.received(seq, now: 1_000); #expect(!gapTooLarge) }
        #expect(nack.missing == [65531, 65533, 65534, 0, 2])
        // A number never missing, and one older than every entry: nothing changes.
        _ = nack.received(3, now: 2_000)
        _ = nack.received(65000, now: 2_000)
        #expect(nack.missing == [65531, 65533, 65534, 0, 2])
        var due: [UInt16] = []
        _ = nack.poll(now: 3_000, rtt: 0, into: &due)
        #expect(due == [65531, 65533, 65534, 0, 2])
        #expect(nack.wasRequested(0))
        #expect(!nack.wasRequested(1))
    }

    @Test func aPacketOlderThanTheFirstMarksWhatLiesBetweenAsMissing() {
        var nack = NackGenerator(maxEntries: 16)
        _ = nack.received(10, now: 0)
        _ = nack.received(13, now: 0)
        // 7 arrived before 10 was known to be the start: 8 and 9 are missing too, oldest first.
        _ = nack.received(7, now: 0)
        nack.markMissing(after: 7, before: 10, now: 0)
        #expect(nack.missing == [8, 9, 11, 12])
        _ = nack.received(9, now: 0)
        #expect(nack.missing == [8, 11, 12])
        // Nothing between neighbours, and no more than the list holds.
        nack.markMissing(after: 6, before: 7, now: 0)
        #expect(nack.missing == [8, 11, 12])
        // More than fits (5543 numbers, 13 places left): the newest 13 before 8, across the wrap.
        nack.markMissing(after: 60_000, before: 8, now: 0)
        #expect(nack.missing == [65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12])
    }

    @Test func aGapTooOldIsGivenUpForAKeyFrame() {
        var nack = NackGenerator(maxRetries: 100, minRetryInterval: 10_000, maxAge: 100_000)
        _ = nack.received(1, now: 0)
        _ = nack.received(3, now: 0)
        _ = nack.received(6, now: 50_000)
        var due: [UInt16] = []
        let young = nack.poll(now: 100_000, rtt: 0, into: &due)
        #expect(!young)
        #expect(due == [2, 4, 5])
        // 2 has been missing 100.001 ms: given up at once; 4 and 5 (missing 50.001 ms) are asked again later.
        due.removeAll()
        let old = nack.poll(now: 100_001, rtt: 0, into: &due)
        #expect(old)
        #expect(due.isEmpty)
        #expect(nack.missing == [4, 5])
        let later = nack.poll(now: 110_000, rtt: 0, into: &due)
        #expect(!later)
        #expect(due == [4, 5])
        // Without maxAge nothing is given up by age.
        var unlimited = NackGenerator(maxRetries: 100, minRetryInterval: 10_000)
        _ = unlimited.received(1, now: 0)
        _ = unlimited.received(3, now: 0)
        let never = unlimited.poll(now: 10_000_000, rtt: 0, into: &due)
        #expect(!never)
        #expect(unlimited.missing == [2])
    }

    @Test func resendsArePacedByTheRoundTripNotFasterThanTheMinimum() {
        var nack = NackGenerator(maxRetries: 10, minRetryInterval: 20_000)
        _ = nack.received(1, now: 0)
        _ = nack.received(3, now: 0)
        var times: [Int64] = []
        for now in stride(from: Int64(0), through: 200_000, by: 5_000) {
            var due: [UInt16] = []
            _ = nack.poll(now: now, rtt: now < 100_000 ? 50_000 : 5_000, into: &due)
            if due == [2] { times.append(now) }
        }
        // Every 50 ms while the RTT is 50 ms; then every 20 ms (the minimum), not every 5 ms.
        #expect(times == [0, 50_000, 100_000, 120_000, 140_000, 160_000, 180_000, 200_000])
    }

    @Test func forgetDropsOnlyOlderNumbers() {
        var nack = NackGenerator()
        _ = nack.received(65533, now: 0)
        _ = nack.received(4, now: 0)
        nack.forget(before: 1)
        #expect(nack.missing == [1, 2, 3])
        nack.forget(before: 65000)
        #expect(nack.missing == [1, 2, 3])
        nack.forget(before: 10)
        #expect(nack.missing.isEmpty)
    }

    // MARK: - Reordering allowance (issue 26)

    /// Packets 1 ms apart; every tenth (5, 15, …) arrives 3.5 ms late, after three newer ones.
    /// Each arrival polls, as the SDK's receivers do. Returns every number NACKed, with when.
    private static func reorderingStream(_ nack: inout NackGenerator, through last: UInt16, dropping lost: Set<UInt16> = [],
                                         late: (UInt16) -> Bool = { $0 % 10 == 5 }) -> [(seq: UInt16, at: Int64)] {
        var arrivals: [(seq: UInt16, at: Int64)] = []
        for seq in 1 ... last where !lost.contains(seq) {
            arrivals.append((seq, Int64(seq) * 1_000 + (late(seq) ? 3_500 : 0)))
        }
        arrivals.sort { $0.at < $1.at }
        var nacked: [(seq: UInt16, at: Int64)] = []
        for arrival in arrivals {
            _ = nack.received(arrival.seq, now: arrival.at)
            var due: [UInt16] = []
            _ = nack.poll(now: arrival.at, rtt: 0, into: &due)
            nacked += due.map { ($0, arrival.at) }
        }
        return nacked
    }

    @Test func reorderedArrivalsWithinTheAllowanceAreNotNACKed() {
        var nack = NackGenerator(minRetryInterval: 40_000)
        let nacked = Self.reorderingStream(&nack, through: 300)
        // Only the first late packet was asked for: nothing had been seen reordered before it.
        // It came 2.5 ms after its gap was seen, three newer numbers after it: from then on a gap
        // waits 3 ms or four newer numbers, and the 29 late packets after it come in time.
        #expect(nacked.map(\.seq) == [5])
        #expect(nack.reordering.time == 3_000)
        #expect(nack.reordering.packets == 3)
        #expect(nack.reordering.samples == 30)
        #expect(nack.missing.isEmpty)
    }

    @Test func aRealLossIsNACKedWithinTheAllowance() {
        var nack = NackGenerator(minRetryInterval: 40_000)
        _ = Self.reorderingStream(&nack, through: 100)
        // 203 never arrives: its gap is seen when 204 arrives (204 ms); it is asked for when a
        // fourth newer number arrives (207 ms), which is also when the 3 ms allowance runs out.
        var later = nack
        var due: [UInt16] = []
        for seq: UInt16 in 101 ... 210 where seq != 203 {
            let now = Int64(seq) * 1_000
            _ = later.received(seq, now: now)
            _ = later.poll(now: now, rtt: 0, into: &due)
            if due == [203] {
                #expect(now - 204_000 <= later.reordering.time)
                #expect(seq == 207)
                break
            }
            #expect(due.isEmpty, "\(due) asked for at \(now)")
        }
        #expect(due == [203])
        // A sparse stream (nothing after the gap): the time allowance alone, polled every 0.5 ms.
        _ = nack.received(101, now: 101_000)
        _ = nack.received(103, now: 103_000)
        due.removeAll()
        var requestedAt: Int64?
        for now in stride(from: Int64(103_000), through: 120_000, by: 500) {
            _ = nack.poll(now: now, rtt: 0, into: &due)
            if !due.isEmpty { requestedAt = now; break }
        }
        #expect(due == [102])
        #expect(requestedAt == 103_000 + nack.reordering.time)
        // Retries keep the retry interval (40 ms), not the allowance.
        due.removeAll()
        _ = nack.poll(now: requestedAt! + 39_999, rtt: 0, into: &due)
        #expect(due.isEmpty)
        _ = nack.poll(now: requestedAt! + 40_000, rtt: 0, into: &due)
        #expect(due == [102])
    }

    @Test func theAllowanceAdaptsToObservedReorderingWithinItsFloorAndCap() {
        var allowance = ReorderingAllowance(floor: 2_000, cap: 10_000)
        // No reordering seen: a gap is overdue as soon as one newer number arrived.
        #expect(allowance.time == 2_000 && allowance.packets == 0)
        #expect(allowance.isOverdue(since: 0, newer: 1, now: 0))
        // Barely late: the floor.
        let barely = allowance.observe(lateness: 100, newer: 1)
        #expect(barely)
        #expect(allowance.time == 2_000 && allowance.packets == 1)
        #expect(!allowance.isOverdue(since: 0, newer: 1, now: 1_999))
        #expect(allowance.isOverdue(since: 0, newer: 1, now: 2_000))
        #expect(allowance.isOverdue(since: 0, newer: 2, now: 0))
        // Later reordering raises it to the 95th percentile, rounded up to the 0.5 ms bucket.
        for _ in 0 ..< 63 { allowance.observe(lateness: 6_200, newer: 5) }
        #expect(allowance.time == 6_500 && allowance.packets == 5)
        // Beyond the cap (a resend, or too late to wait for): not a sample.
        let beyond = allowance.observe(lateness: 10_001, newer: 40)
        #expect(!beyond)
        #expect(allowance.time == 6_500 && allowance.samples == 64)
        // At the cap: never above it.
        for _ in 0 ..< 64 { allowance.observe(lateness: 9_900, newer: 200) }
        #expect(allowance.time == 10_000 && allowance.packets == ReorderingAllowance.maxPackets)
        // Only the last 64 samples count: when reordering shrinks, so does the allowance.
        for _ in 0 ..< 64 { allowance.observe(lateness: 700, newer: 2) }
        #expect(allowance.time == 2_000 && allowance.packets == 2)
        // A few outliers stay under the percentile.
        for _ in 0 ..< 3 { allowance.observe(lateness: 9_000, newer: 9) }
        #expect(allowance.time == 2_000 && allowance.packets == 2)
        // The cap is at most half the generator's retry interval.
        #expect(NackGenerator(minRetryInterval: 40_000).reordering.cap == 10_000)
        #expect(NackGenerator(minRetryInterval: 8_000).reordering.cap == 4_000)
        #expect(NackGenerator(minRetryInterval: 2_000).reordering.floor == 1_000)
    }

    @Test func aPacketRebuiltFromRedundancyLeavesTheListWithoutTeachingReordering() {
        var nack = NackGenerator()
        _ = nack.received(1, now: 0)
        _ = nack.received(3, now: 20_000)
        _ = nack.recovered(2, now: 21_000)
        #expect(nack.missing.isEmpty)
        #expect(nack.reordering.samples == 0)
        _ = nack.received(5, now: 40_000)
        _ = nack.received(4, now: 41_000)
        #expect(nack.reordering.samples == 1)
    }

    @Test func withoutAnAllowanceEveryGapIsRequestedAtOnce() {
        // The SDK's audio (`maxReorderingDelay: 0`): each late packet was asked for when its gap was seen.
        var nack = NackGenerator(maxEntries: 32, maxRetries: 3, maxReorderingDelay: 0)
        let nacked = Self.reorderingStream(&nack, through: 100)
        #expect(nacked.map(\.seq) == [5, 15, 25, 35, 45, 55, 65, 75, 85, 95])
        #expect(nacked.map(\.at) == [6_000, 16_000, 26_000, 36_000, 46_000, 56_000, 66_000, 76_000, 86_000, 96_000])
        #expect(nack.reordering.cap == 0 && nack.reordering.samples == 0)
    }
}
