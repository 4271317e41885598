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
}
