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
}
