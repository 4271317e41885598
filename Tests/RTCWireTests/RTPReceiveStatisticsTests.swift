import Testing
import RTCWire

/// RFC 3550 Appendix A: §A.1 sequence tracking, §A.3 loss, §A.8 jitter.
struct RTPReceiveStatisticsTests {
    @Test func countsExpectedAndLostAcrossTheSequenceWrap() {
        var stats = RTPReceiveStatistics(clockRate: 90_000)
        // 65530 … 5 with 65534 and 2 missing: 12 expected, 10 received.
        var seqs: [UInt16] = Array(65530 ... 65535) + Array(0 ... 5)
        seqs.removeAll { $0 == 65534 || $0 == 2 }
        for (i, seq) in seqs.enumerated() {
            stats.update(sequenceNumber: seq, timestamp: UInt32(i) * 3000, arrivalMicros: Int64(i) * 33_333, size: 100)
        }
        #expect(stats.cycles == 0x1_0000)
        #expect(stats.extendedHighestSequence == 0x1_0005)
        #expect(stats.packetsExpected == 12)
        #expect(stats.packetsReceived == 10)
        #expect(stats.cumulativeLost == 2)
        // §A.3: fraction = lost_interval × 256 / expected_interval = 2 × 256 / 12 = 42.
        let fraction = stats.takeFractionLost()
        #expect(fraction == 42)
        // A new interval with nothing lost.
        stats.update(sequenceNumber: 6, timestamp: 40_000, arrivalMicros: 400_000, size: 100)
        let none = stats.takeFractionLost()
        #expect(none == 0)
        #expect(stats.bytesReceived == 1100)
    }

    @Test func lateAndDuplicatePacketsDoNotMoveTheHighestSequence() {
        var stats = RTPReceiveStatistics(clockRate: 48_000)
        for seq: UInt16 in [100, 101, 103, 102, 103] {
            stats.update(sequenceNumber: seq, timestamp: 0, arrivalMicros: 0, size: 10)
        }
        #expect(stats.maxSequence == 103)
        #expect(stats.packetsExpected == 4)
        // Duplicates count as received (§A.3), making cumulative loss negative.
        #expect(stats.packetsReceived == 5)
        #expect(stats.cumulativeLost == -1)
    }

    @Test func aLargeJumpRestartsOnlyWhenTheNextPacketConfirmsIt() {
        var stats = RTPReceiveStatistics(clockRate: 48_000)
        stats.update(sequenceNumber: 10, timestamp: 0, arrivalMicros: 0, size: 10)
        stats.update(sequenceNumber: 11, timestamp: 0, arrivalMicros: 0, size: 10)
        let jump = stats.update(sequenceNumber: 30_000, timestamp: 0, arrivalMicros: 0, size: 10)
        #expect(!jump)
        #expect(stats.maxSequence == 11)
        let confirmed = stats.update(sequenceNumber: 30_001, timestamp: 0, arrivalMicros: 0, size: 10)
        #expect(confirmed)
        #expect(stats.maxSequence == 30_001)
        #expect(stats.packetsExpected == 1)
    }

    @Test func jitterFollowsTheA8Recursion() {
        var stats = RTPReceiveStatistics(clockRate: 8_000)
        // 20 ms packets (160 ticks); the second arrives 10 ms late (80 ticks of transit change).
        stats.update(sequenceNumber: 1, timestamp: 0, arrivalMicros: 0, size: 10)
        stats.update(sequenceNumber: 2, timestamp: 160, arrivalMicros: 30_000, size: 10)
        #expect(stats.jitter == 80.0 / 16)
        // Back on time: transit changes by 80 again.
        stats.update(sequenceNumber: 3, timestamp: 320, arrivalMicros: 40_000, size: 10)
        #expect(stats.jitter == 5 + (80 - 5) / 16.0)
        // Same timestamp (another packet of the same frame): no jitter update.
        stats.update(sequenceNumber: 4, timestamp: 320, arrivalMicros: 90_000, size: 10)
        #expect(stats.jitter == 5 + (80 - 5) / 16.0)
        #expect(abs(stats.jitterMilliseconds - stats.jitter / 8) < 1e-9)
    }

    @Test func theReportBlockCarriesLossJitterAndTheDelaySinceTheLastSenderReport() {
        var stats = RTPReceiveStatistics(clockRate: 90_000)
        for seq: UInt16 in [1, 2, 4] { stats.update(sequenceNumber: seq, timestamp: UInt32(seq) * 3000, arrivalMicros: Int64(seq) * 33_333, size: 100) }
        let before = stats.makeReportBlock(ssrc: 0xABCD, nowMicros: 1_000_000)
        // No sender report yet: LSR and DLSR are zero (RFC 3550 §6.4.1).
        #expect(before.ssrc == 0xABCD && before.lastSenderReport == 0 && before.delay == 0)
        #expect(before.totalLost == 1 && before.lastSequenceNumber == 4 && before.fractionLost == 64)
        // NTP 0x0001_0002_0003_0004: the middle 32 bits are 0x0002_0003; 1.5 s later DLSR is 1.5 × 65536.
        stats.senderReportArrived(ntp: NTPTime(rawValue: 0x0001_0002_0003_0004), arrivalMicros: 2_000_000)
        let after = stats.makeReportBlock(ssrc: 0xABCD, nowMicros: 3_500_000)
        #expect(after.lastSenderReport == 0x0002_0003 && after.delay == 98_304)
        // The interval closed at the first block: nothing new was lost since.
        #expect(after.fractionLost == 0 && after.totalLost == 1)
    }

    @Test func duplicatesMakeTheReportedLossNegative() {
        var stats = RTPReceiveStatistics(clockRate: 48_000)
        // Duplicates count as received (§A.3), so more arrive than were expected.
        stats.update(sequenceNumber: 5, timestamp: 0, arrivalMicros: 0, size: 10)
        for _ in 0..<10 { stats.update(sequenceNumber: 5, timestamp: 0, arrivalMicros: 0, size: 10) }
        #expect(stats.makeReportBlock(ssrc: 1, nowMicros: 0).totalLost == -10)
    }
}
