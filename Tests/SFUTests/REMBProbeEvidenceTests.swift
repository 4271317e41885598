import RTCWire
import Testing
@testable import SFU

/// Probes toward a subscriber that sends REMB and no transport-cc (aiortc): the rate a probe
/// sent counts as proven once the receiver's REMB and reports showed no queue for long enough,
/// and the estimate stands there until they show one (docs/network.md, "Probing").
struct REMBProbeEvidenceTests {
    @Test func aProbeProvesWhatItSentOnceAReportWithinItShowsNoLossOrQueue() {
        var evidence = REMBProbeEvidence(start: 0, bytesSent: 1_000, remb: 290_000, baseRoundTrip: 10_000)
        evidence.onREMB(300_000)
        // The first report since the start counts loss from before it: no evidence yet.
        evidence.onReport(ssrc: 1, fractionLost: 0, roundTrip: 12_000, now: 400_000)
        #expect(evidence.proven(now: 1_600_000, bytesSent: 161_000) == nil)
        evidence.onREMB(310_000)
        evidence.onReport(ssrc: 1, fractionLost: 0, roundTrip: 15_000, now: 1_300_000)
        // Not before the hold: a queue at the link's rate takes a moment to show.
        #expect(evidence.proven(now: 1_000_000, bytesSent: 101_000) == nil)
        // 160 kB in 1.6 s.
        #expect(evidence.proven(now: 1_600_000, bytesSent: 161_000) == 800_000)
        #expect(evidence.failure == nil)
    }

    @Test(arguments: ["loss", "remb", "delay"])
    func lossAFallingREMBOrARisingRoundTripShowNoCapacity(sign: String) {
        // The REMB at the start counts: a probe into a full queue brings the next one down.
        var evidence = REMBProbeEvidence(start: 0, bytesSent: 0, remb: sign == "remb" ? 383_000 : 300_000, baseRoundTrip: 10_000)
        evidence.onREMB(sign == "remb" ? 144_000 : 300_000)
        evidence.onReport(ssrc: 1, fractionLost: 0, roundTrip: 12_000, now: 300_000)
        #expect(evidence.failure == (sign == "remb" ? "remb" : nil))
        if sign == "remb" { evidence.onREMB(170_000) }  // its own padding raises it again
        evidence.onReport(ssrc: 1, fractionLost: sign == "loss" ? 0.04 : 0,
                          roundTrip: sign == "delay" ? 90_000 : 12_000, now: 1_200_000)
        #expect(evidence.proven(now: 2_000_000, bytesSent: 200_000) == nil)
        #expect(evidence.failure == sign)
    }

    /// NACKs show the loss a report would show up to a second later: a probe that overfills a
    /// tail-drop queue loses its padding in runs, each a gap the receiver NACKs at once.
    @Test func nacksForAShareOfWhatWasSentShowNoCapacity() {
        var evidence = REMBProbeEvidence(start: 0, bytesSent: 0, packetsSent: 1_000, remb: 300_000, baseRoundTrip: 10_000)
        // One number in 100 sent since the start: under the 2 % a report may show.
        evidence.onNACK(asked: 1, packetsSent: 1_100)
        #expect(evidence.failure == nil)
        evidence.onReport(ssrc: 1, fractionLost: 0, roundTrip: 12_000, now: 300_000)
        evidence.onReport(ssrc: 1, fractionLost: 0, roundTrip: 12_000, now: 1_200_000)
        #expect(evidence.proven(now: 1_600_000, bytesSent: 160_000) == 800_000)
        // Three more of 150: 4 of 150.
        evidence.onNACK(asked: 3, packetsSent: 1_150)
        #expect(evidence.failure == "loss")
        #expect(evidence.proven(now: 1_700_000, bytesSent: 170_000) == nil)
    }

    @Test func aProvedRateHoldsTheREMBEstimateUntilTheReceiverShowsAQueue() {
        var estimator = BandwidthEstimator()
        estimator.onREMB(bitrate: 300_000, now: 0)
        estimator.acceptREMBProbe(800_000)
        #expect(estimator.estimate == 800_000)
        // The receiver's AIMD climbs slowly: the proved rate stands.
        estimator.onREMB(bitrate: 330_000, now: 0)
        #expect(estimator.estimate == 800_000)
        // A fall is its delay-based detector seeing a queue.
        estimator.onREMB(bitrate: 280_000, now: 0)
        #expect(estimator.estimate == 280_000)
        // Loss in a report ends it.
        estimator.acceptREMBProbe(800_000)
        estimator.onReceiverReport(ssrc: 1, fractionLost: 0.1, roundTrip: nil, now: 0)
        #expect(estimator.estimate == 280_000)
        // So does a round trip 60 ms above its least.
        estimator.onReceiverReport(ssrc: 1, fractionLost: 0, roundTrip: 10_000, now: 1_000_000)
        estimator.acceptREMBProbe(800_000)
        estimator.onReceiverReport(ssrc: 1, fractionLost: 0, roundTrip: 40_000, now: 2_000_000)
        #expect(estimator.estimate == 800_000)
        estimator.onReceiverReport(ssrc: 1, fractionLost: 0, roundTrip: 75_000, now: 3_000_000)
        #expect(estimator.estimate == 280_000)
        // A REMB that reaches it takes over.
        estimator.acceptREMBProbe(800_000)
        estimator.onREMB(bitrate: 850_000, now: 0)
        estimator.onREMB(bitrate: 700_000, now: 0)
        #expect(estimator.estimate == 700_000)
    }
}

extension REMBProbeEvidenceTests {
    @Test func aREMBThatFallsFastIsCongestionAndOneThatFallsSlowlyIsNot() {
        var estimator = BandwidthEstimator()
        estimator.onREMB(bitrate: 1_000_000, now: 0)
        estimator.onREMB(bitrate: 900_000, now: 500_000)
        #expect(!estimator.rembDropping(now: 500_000))
        // More than 15 % under the highest of the last second: congestion for 600 ms.
        estimator.onREMB(bitrate: 800_000, now: 900_000)
        #expect(estimator.rembDropping(now: 900_000))
        #expect(estimator.rembDropping(now: 1_400_000))
        #expect(!estimator.rembDropping(now: 1_500_000))
        // The same fall spread over more than a second is an estimate that follows the link.
        var slow = BandwidthEstimator()
        for (index, value) in [1_000_000, 920_000, 860_000, 800_000, 740_000].enumerated() {
            slow.onREMB(bitrate: UInt64(value), now: Int64(index) * 600_000)
            #expect(!slow.rembDropping(now: Int64(index) * 600_000))
        }
    }
}

extension SimulcastConsumerTests {
    /// A subscriber whose REMB fell to 300 kbit/s with the big layer, then climbs 1 % a second (an
    /// AIMD near its last maximum, slower than aiortc's 20 kbit/s a second), and whose receiver
    /// reports every 700 ms show `fractionLost` (of 256). Returns how long after the switch to the
    /// small layer the big one was the target again, nil if not within 10 s.
    /// With `nackingProbes`, whenever a probe runs the subscriber NACKs the 20 newest numbers sent
    /// (a probe that overfilled a tail-drop queue, about 4 % of what it sent since its start), and
    /// `probeStops` gets whether it stopped by the next tick.
    func secondsBackUp(reportedLoss fractionLost: UInt8, nackingProbes: Bool = false, probeStops: inout [Bool]) throws -> Double? {
        let h = try harness(preferred: "camera_big")
        var feed = TwoLayerFeed(h)
        func report() {
            h.subscriberRTCP([.receiverReport(ReceiverReport(ssrc: 0xB0B, reports: [ReceptionReport(ssrc: 0xAAAA, fractionLost: fractionLost)]))])
        }
        feed.run(ms: 1500)
        feed.remb(3_000_000)
        feed.run(ms: 3500)
        let consumer = try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer)
        #expect(consumer.targetLayer == 1)
        // A REMB that falls fast lowers the layer at once (no 1.5 s hold), stopping the big one.
        feed.remb(300_000)
        feed.run(ms: 100)
        #expect(consumer.targetLayer == 0)
        feed.run(ms: 2400)
        feed.keySmall = true
        feed.run(ms: 100)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "camera_small", previous: "camera_big", cause: .bandwidth))
        var remb = 300_000.0
        for step in 1 ... 100 {
            feed.run(ms: 100)
            if step % 5 == 0 {
                remb *= 1.005
                feed.remb(UInt64(remb))
            }
            if step % 7 == 0 { report() }
            if nackingProbes, h.subscriber.isProbing,
               let newest = h.subscriberSink.rtp.reversed().lazy.compactMap({ try? RTPPacket(parsing: $0) }).first(where: { $0.ssrc == 0xAAAA }) {
                let lost = (0 ..< UInt16(20)).map { newest.sequenceNumber &- $0 }
                h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: lost))])
                feed.run(ms: 20)
                probeStops.append(!h.subscriber.isProbing)
            }
            if consumer.targetLayer == 1 { return Double(step) / 10 }
        }
        return nil
    }

    func secondsBackUp(reportedLoss fractionLost: UInt8) throws -> Double? {
        var stops: [Bool] = []
        return try secondsBackUp(reportedLoss: fractionLost, probeStops: &stops)
    }

    @Test func aREMBReceiverWhoseEstimateClimbsSlowlyIsRaisedOnAProbeWithoutLossOrQueue() throws {
        let back = try #require(try secondsBackUp(reportedLoss: 0))
        // From the downgrade: its hold (2 s), the next round, then the probe: 1.5 s at least and a
        // report whose interval lies within it (the second since its start, 0.7 s apart).
        #expect(back <= 6)
        print("REMB receiver, slow AIMD, no loss: the big layer the target again \(back) s after the switch down")
    }

    @Test func aREMBReceiverReportingLossStaysDown() throws {
        #expect(try secondsBackUp(reportedLoss: 26) == nil)  // 10 %
    }

    /// A NACK during a probe is its loss, shown a report's interval sooner: the probe stops by the
    /// next tick, and the receiver, whose reports show no loss, stays down.
    @Test func aREMBReceiverNACKingAProbeStopsItAtOnceAndStaysDown() throws {
        var stops: [Bool] = []
        #expect(try secondsBackUp(reportedLoss: 0, nackingProbes: true, probeStops: &stops) == nil)
        #expect(!stops.isEmpty && stops.allSatisfy { $0 }, "probes stopped at the next tick: \(stops)")
    }
}
