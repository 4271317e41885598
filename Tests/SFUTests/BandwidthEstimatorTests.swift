import Testing
@testable import SFU

struct BandwidthEstimatorTests {
    /// 100 packets of 1000 bytes sent 1 ms apart from `start`, arriving after `delay(i)`, or lost.
    static func feedback(start: Int64, lostEvery: Int? = nil, delay: (Int) -> Int64 = { _ in 20_000 })
        -> [BandwidthEstimator.PacketFeedback] {
        (0 ..< 100).map { i in
            let send = start + Int64(i) * 1000
            let lost = lostEvery.map { i % $0 == 0 } ?? false
            return .init(sendTime: send, size: 1000, arrivalTime: lost ? nil : send + delay(i))
        }
    }

    /// `rounds` clean feedbacks (`feedback`) 100 ms apart from time 0; returns the last one's time.
    static func feedClean(_ estimator: inout BandwidthEstimator, rounds: Int) -> Int64 {
        var now: Int64 = 0
        for round in 0 ..< rounds {
            now += 100_000
            estimator.onTransportFeedback(feedback(start: Int64(round) * 100_000), now: now)
        }
        return now
    }

    @Test func rembAloneIsTheEstimateAndTheLowerSourceWins() {
        var estimator = BandwidthEstimator()
        #expect(estimator.estimate == nil)
        estimator.onREMB(bitrate: 800_000, now: 0)
        #expect(estimator.estimate == 800_000)
        estimator.onTransportFeedback(Self.feedback(start: 0), now: 100_000)
        #expect(estimator.estimate == 800_000)
        estimator.onREMB(bitrate: 5_000_000, now: 0)
        #expect(estimator.estimate == 1_000_000)
    }

    /// 5 packets of 1200 bytes sent 2 ms apart from `start`, the first arriving `delay` ms after it
    /// was sent and the others `spacing` apart.
    static func burst(start: Int64, delay: Int64, spacing: Int64) -> [BandwidthEstimator.PacketFeedback] {
        (0 ..< 5).map { i in
            .init(sendTime: start + Int64(i) * 2_000, size: 1200, arrivalTime: start + delay + Int64(i) * spacing)
        }
    }

    /// Three feedbacks 60 ms apart whose queueing delay climbs 0, then about 90 and 140 ms, the
    /// packets of the last two arriving `spacing` apart (sent 2 ms apart); returns the estimator
    /// and the time of the last feedback.
    static func risingDelay(spacing: Int64) -> (BandwidthEstimator, now: Int64) {
        var estimator = BandwidthEstimator()
        estimator.onTransportFeedback(burst(start: 0, delay: 10_000, spacing: 2_000), now: 50_000)
        var now: Int64 = 50_000
        for delay: Int64 in [38_000, 91_000] {
            now += 60_000
            estimator.onTransportFeedback(burst(start: now - 60_000, delay: delay, spacing: spacing), now: now)
        }
        return (estimator, now)
    }

    /// A link that narrows under the big layer (the lab's 2 Mbit/s → 300 kbit/s): the queueing
    /// delay grows from feedback to feedback, the packets arriving 32 ms apart (the link's pace)
    /// although sent 2 ms apart: congestion at the third, not 150 ms after the delay passed 60 ms.
    @Test func queueingDelayThatGrowsFastIsCongestionAtOnce() {
        var (estimator, now) = Self.risingDelay(spacing: 32_000)
        #expect(estimator.lastQueueDelay >= estimator.configuration.rampDelay)
        #expect(estimator.overusing)
        // It stays congestion while the delay stays above the threshold.
        now += 60_000
        estimator.onTransportFeedback(Self.burst(start: now - 60_000, delay: 91_000, spacing: 32_000), now: now)
        #expect(estimator.overusing)
    }

    /// A receiver whose thread stalled stamps a late batch closer together than it was sent: the
    /// same rising delays are no ramp (the level rule still needs its 150 ms).
    @Test func aLateBatchFromAStalledReceiverIsNoRamp() {
        let (estimator, _) = Self.risingDelay(spacing: 100)
        #expect(estimator.lastQueueDelay >= estimator.configuration.rampDelay)
        #expect(!estimator.overusing)
    }

    @Test func cleanFeedbackGrowsTheEstimate() {
        var estimator = BandwidthEstimator()
        var now: Int64 = 100_000
        estimator.onTransportFeedback(Self.feedback(start: 0), now: now)
        let first = estimator.estimate ?? 0
        for round in 1 ... 10 {
            now += 100_000
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000), now: now)
        }
        // One second at 25 %/s.
        #expect(estimator.estimate ?? 0 > first)
        #expect(abs(Double(estimator.estimate ?? 0) - Double(first) * 1.25) < 1_000)
    }

    @Test func heavyLossWithQueueingDelayOverAWindowCutsInProportion() {
        var estimator = BandwidthEstimator()
        // A clean path (20 ms, no loss) for a complete loss window first: the queue forms on it.
        for round in 0 ..< 6 {
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000), now: 100_000 + Int64(round) * 100_000)
        }
        let before = Double(estimator.estimate ?? 0)
        // Every 5th packet lost, a report every 100 ms, the one-way delay climbing 0.5 ms a packet
        // within each (a queue filling, then overflowing: about 25 ms of queueing delay on
        // average, risen from the clean path's): no cut (and no growth) before the 500 ms window closes…
        let queue: (Int) -> Int64 = { 20_000 + Int64($0) * 500 }
        for round in 6 ..< 10 {
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000, lostEvery: 5, delay: queue),
                                          now: 100_000 + Int64(round) * 100_000)
        }
        #expect(estimator.lastLossRate == 0.2)
        #expect(estimator.lastQueueDelay >= estimator.configuration.lossDelay)
        #expect(estimator.lastLossQueueDelay >= estimator.configuration.lossDelay)
        #expect(Double(estimator.estimate ?? 0) == before)
        // …then one cut for the window's 20 %: × 0.9.
        estimator.onTransportFeedback(Self.feedback(start: 1_000_000, lostEvery: 5, delay: queue), now: 1_100_000)
        #expect(estimator.windowLossRate == 0.2 && estimator.windowLossCongested)
        #expect(abs(Double(estimator.estimate ?? 0) - before * 0.9) < 1)
        // Growth is held right after a decrease.
        let cut = estimator.estimate
        estimator.onTransportFeedback(Self.feedback(start: 1_100_000), now: 1_200_000)
        #expect(estimator.estimate == cut)
    }

    /// A path that was shorter for a moment (the lab relay sends what it held at once when it is
    /// reshaped: a few datagrams 20 ms early) leaves the 10 s base delay low, and a flat 20 ms
    /// path reads as 20 ms of queueing delay for seconds after. Loss in bursts on that flat path
    /// is still not congestion: the delay did not rise (NetworkLabRelayTests switched down).
    @Test func aMomentOfAShorterPathDoesNotMakeLaterLossCongestion() {
        var estimator = BandwidthEstimator()
        var now = Self.feedClean(&estimator, rounds: 10)
        // Three datagrams come 20 ms early, then 10 in a row of every 100 are lost for 5 s.
        now += 100_000
        estimator.onTransportFeedback(Self.feedback(start: 1_000_000, delay: { $0 < 3 ? 0 : 20_000 }), now: now)
        let before = estimator.estimate
        for round in 11 ..< 61 {
            now += 100_000
            let packets = Self.feedback(start: Int64(round) * 100_000).enumerated().map { i, packet in
                i < 10 ? BandwidthEstimator.PacketFeedback(sendTime: packet.sendTime, size: packet.size, arrivalTime: nil) : packet
            }
            estimator.onTransportFeedback(packets, now: now)
            #expect(estimator.lastLossQueueDelay < estimator.configuration.lossDelay, "round \(round)")
        }
        // The old measure (from the 10 s base) reads the flat path as a queue; the rise does not.
        #expect(estimator.lastQueueDelay >= estimator.configuration.lossDelay)
        #expect(abs(estimator.windowLossRate - 0.1) < 0.001 && !estimator.windowLossCongested)
        #expect(estimator.estimate == before)
    }

    /// Loss on a flat delay (a lossy radio link or relay, no queue) is not congestion: 20 % and
    /// 10 % in bursts of 10 for 5 s neither cut nor grow the estimate; growth comes back with a
    /// clean window.
    @Test func heavyLossWithoutQueueingDelayHoldsTheEstimate() {
        var estimator = BandwidthEstimator()
        let before = estimator.configuration.initial
        var now: Int64 = 0
        for round in 0 ..< 50 {
            now += 100_000
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000, lostEvery: 5), now: now)
        }
        #expect(estimator.windowLossRate == 0.2 && !estimator.windowLossCongested)
        #expect(estimator.estimate == Int(before))
        for round in 50 ..< 100 {
            now += 100_000
            // 10 in a row of every 100 lost.
            let packets = Self.feedback(start: Int64(round) * 100_000).enumerated().map { i, packet in
                i < 10 ? BandwidthEstimator.PacketFeedback(sendTime: packet.sendTime, size: packet.size, arrivalTime: nil) : packet
            }
            estimator.onTransportFeedback(packets, now: now)
        }
        #expect(abs(estimator.windowLossRate - 0.1) < 0.001)
        #expect(estimator.estimate == Int(before))
        for round in 100 ..< 110 {
            now += 100_000
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000), now: now)
        }
        #expect(estimator.estimate ?? 0 > Int(before))
    }

    /// Loss so heavy that the layer cannot be repaired (a policer dropping without a queue) cuts
    /// without queueing delay.
    @Test func severeLossCutsWithoutQueueingDelay() {
        var estimator = BandwidthEstimator()
        let before = estimator.configuration.initial
        for round in 0 ..< 6 {
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000, lostEvery: 2), now: 100_000 + Int64(round) * 100_000)
        }
        #expect(estimator.windowLossRate == 0.5 && estimator.windowLossCongested)
        #expect(abs(Double(estimator.estimate ?? 0) - before * 0.75) < 1)
    }

    @Test func fivePercentRandomLossDoesNotCutTheEstimate() {
        var estimator = BandwidthEstimator()
        let before = estimator.configuration.initial
        // 8 packets of 1000 bytes every 50 ms (1.28 Mbit/s), one in 20 lost at scattered places:
        // single reports show 12.5 % or 25 % now and then, the windows about 5 %.
        var index = 0
        var heaviestReport = 0.0
        for round in 0 ..< 100 {
            let start = Int64(round) * 50_000
            let report: [BandwidthEstimator.PacketFeedback] = (0 ..< 8).map { i in
                defer { index += 1 }
                let send = start + Int64(i) * 6_000
                let lost = (index * 7919) % 20 == 3
                return .init(sendTime: send, size: 1000, arrivalTime: lost ? nil : send + 20_000)
            }
            estimator.onTransportFeedback(report, now: start + 50_000)
            heaviestReport = max(heaviestReport, estimator.lastLossRate)
        }
        #expect(heaviestReport > estimator.configuration.highLoss)
        #expect(abs(estimator.windowLossRate - 0.05) < 0.03)
        #expect(Double(estimator.estimate ?? 0) >= before, "estimate \(estimator.estimate ?? 0)")
    }

    @Test func growingQueueDelayCapsBelowTheDeliveredRate() {
        var estimator = BandwidthEstimator()
        // 8 Mbit/s delivered (1000 B per ms) with a steady delay, long enough to measure it.
        var now = Self.feedClean(&estimator, rounds: 10)
        #expect(estimator.deliveredRate.map { abs($0 - 8_000_000) < 200_000 } == true)
        let before = estimator.estimate ?? 0
        // One late batch (a receiver thread that stalled): no cut.
        now += 100_000
        estimator.onTransportFeedback(Self.feedback(start: 1_000_000) { _ in 120_000 }, now: now)
        #expect(estimator.lastQueueDelay > 60_000 && !estimator.overusing)
        #expect(estimator.estimate == before)
        now += 100_000
        estimator.onTransportFeedback(Self.feedback(start: 1_100_000), now: now)
        // Then the queue builds and stays: 80 ms and more above the base for 200 ms.
        for round in 0 ..< 3 {
            now += 100_000
            estimator.onTransportFeedback(Self.feedback(start: 1_200_000 + Int64(round) * 100_000) { 100_000 + Int64($0) * 500 }, now: now)
        }
        #expect(estimator.lastQueueDelay > 60_000 && estimator.overusing)
        #expect(Double(estimator.estimate ?? 0) <= 0.85 * (estimator.deliveredRate ?? 0) + 1)
    }
}

extension BandwidthEstimatorTests {
    @Test func growthStopsAtOneAndAHalfTimesWhatWasDelivered() {
        var estimator = BandwidthEstimator()
        var now: Int64 = 0
        // 800 kbit/s delivered (100 B per ms) for 30 s, clean: the estimate ends at 1.2 Mbit/s.
        for round in 0 ..< 300 {
            now += 100_000
            let packets = (0 ..< 100).map { i -> BandwidthEstimator.PacketFeedback in
                let send = Int64(round) * 100_000 + Int64(i) * 1000
                return .init(sendTime: send, size: 100, arrivalTime: send + 20_000)
            }
            estimator.onTransportFeedback(packets, now: now)
        }
        #expect(estimator.deliveredRate.map { abs($0 - 800_000) < 20_000 } == true)
        #expect(abs((estimator.estimate ?? 0) - 1_200_000) < 30_000)
    }

    @Test func aProbeIsMeasuredFromItsOwnPacketsAndAccepted() {
        var estimator = BandwidthEstimator()
        estimator.onTransportFeedback(Self.feedback(start: 0), now: 100_000)
        estimator.startProbe(at: 100_000)
        #expect(estimator.probeDelivered == nil)
        // 300 packets of 1000 B, 1 ms apart, after the start: 8 Mbit/s delivered.
        for round in 1 ... 3 {
            estimator.onTransportFeedback(Self.feedback(start: Int64(round) * 100_000), now: Int64(round + 1) * 100_000)
        }
        let delivered = estimator.probeDelivered ?? 0
        #expect(abs(delivered - 8_000_000) < 100_000, "probe measured \(delivered)")
        estimator.acceptProbe(delivered)
        #expect(estimator.estimate == delivered)
        estimator.endProbe()
        #expect(estimator.probeDelivered == nil)
    }

    @Test func aProbeIsJudgedOnItsLatestWindowNotOnATokenBucketsFirstBurst() {
        var estimator = BandwidthEstimator()
        estimator.onTransportFeedback(Self.feedback(start: 0), now: 100_000)
        estimator.startProbe(at: 100_000)
        // A probe sent at 240 kbit/s (one 1000 B packet every 33 ms) through a 150 kbit/s token
        // bucket: the bucket's 8 kB pass at once, later packets leave at the link's 53 ms spacing.
        var packets: [BandwidthEstimator.PacketFeedback] = []
        var send: Int64 = 100_000, departure: Int64 = 100_000, tokens = 8000.0
        for _ in 0 ..< 40 {
            let start = max(send, departure)
            tokens = min(8000, tokens + Double(start - departure) * 150_000 / 8 / 1e6)
            if tokens >= 1000 {
                tokens -= 1000
                departure = start
            } else {
                departure = start + Int64((1000 - tokens) * 8 / 150_000 * 1e6)
                tokens = 0
            }
            packets.append(.init(sendTime: send, size: 1000, arrivalTime: departure + 20_000))
            send += 33_333
        }
        estimator.onTransportFeedback(Array(packets[..<10]), now: 500_000)
        let early = estimator.probeDelivered ?? 0
        estimator.onTransportFeedback(Array(packets[10...]), now: 1_500_000)
        let late = estimator.probeDelivered ?? 0
        #expect(early > 200_000, "first window \(early)")
        #expect(abs(late - 150_000) < 20_000, "latest window \(late)")
    }
}
