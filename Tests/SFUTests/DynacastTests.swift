import Testing
@testable import SFU

/// Dynacast: every 100 ms the router tells which layers of a layered producer anyone needs
/// (`SFUEvent.layersNeeded`), only when that changed.
struct DynacastTests {
    typealias H = SFUHarness

    static func needed(_ log: EventLog) -> [[String]] {
        log.events.compactMap { if case .layersNeeded(_, _, let layers) = $0 { return layers } else { return nil } }
    }

    static func producer(_ h: SFUHarness) -> Producer { h.core.producers["cam"]! }

    @Test func aSimulcastPublisherIsToldTheLayersItsSubscribersNeed() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        h.advance(ms: 100)
        h.tick()
        #expect(Self.needed(h.log) == [[]])   // nobody subscribes
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video),
                               preferredLayer: "camera_small", paused: false, now: h.now)
        h.advance(ms: 100)
        h.tick()
        h.advance(ms: 100)
        h.tick()
        #expect(Self.needed(h.log) == [[], ["camera_small"]])
        // Asked for the big layer (nothing forwarded yet: the small one is not kept).
        try h.core.setPreferredLayer("bob/cam", layer: "camera_big", now: h.now)
        h.advance(ms: 100)
        h.tick()
        #expect(Self.needed(h.log).last == ["camera_big"])
        try h.core.setConsumerPaused("bob/cam", paused: true, now: h.now)
        h.advance(ms: 100)
        h.tick()
        #expect(Self.needed(h.log).last == [])
    }

    /// The step-down with dynacast on: the small layer, paused at the publisher because nobody
    /// received it, counts at its last measured rate, so a low estimate targets it, the publisher
    /// is asked for it again and the consumer switches on its key frame.
    @Test func aBigLayerSubscriberIsLoweredForBandwidthWhileTheSmallLayerIsPaused() throws {
        let h = try SimulcastConsumerTests().harness(preferred: "camera_big")
        var feed = TwoLayerFeed(h)
        feed.obeysDynacast = true
        // Every layer is kept until it has been measured, then the small one is paused.
        feed.run(ms: 2500)
        #expect(Self.needed(h.log).first == ["camera_big", "camera_small"])
        #expect(Self.needed(h.log).last == ["camera_big"])
        // The small layer stops and, after the activity window, sends nothing at all; it costs
        // what it sent before it was told to stop, not its measurement decaying meanwhile.
        let before = Self.producer(h).streams[0].lastSendingBitrate
        feed.run(ms: 2500)
        #expect(!feed.sendsSmall)
        let producer = try #require(h.core.producers["cam"])
        #expect(!producer.streams[0].isActive(now: h.now))
        #expect(producer.streams[0].lastSendingBitrate == before)
        let consumer = try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer)
        let rates = consumer.layerBitrates(now: h.now)
        #expect(rates[0] == producer.streams[0].lastSendingBitrate && rates[0] > 50_000 && rates[0] < 150_000, "\(rates)")

        // 300 kbit/s cannot carry the big layer (≈ 1.2 Mbit/s): after the grace and the hold the
        // small one is the target, the publisher is told so and the switch follows its key frame.
        feed.remb(300_000)
        feed.run(ms: 4500)
        #expect(consumer.targetLayer == 0)
        #expect(Self.needed(h.log).last == ["camera_big", "camera_small"])
        #expect(feed.sendsSmall)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "camera_small", previous: "camera_big", cause: .bandwidth))
        #expect(consumer.currentLayer == 0)
        let seqs = h.subscriberSink.packets.map(\.sequenceNumber)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    /// A layer that never sent costs an eighth of the next measured one per step;
    /// asked for again, it stays available for `pausedLayerResumeGrace`, then counts as inactive
    /// while it still sends nothing (a publisher that does not do dynacast).
    @Test func aPausedLayerThatNeverSentIsGuessedAndGivenUpAfterTheResumeGrace() throws {
        let h = try SimulcastConsumerTests().harness(preferred: "camera_big")
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1, packetSize: 1000)
        func run(ms: Int) {
            for step in 0 ..< ms / 10 {
                if step % 3 == 0 { for p in big.frame(key: step == 0, packets: 4) { h.publish(p) } }
                h.advance(ms: 10)
                if step % 2 == 1 { h.tick() }
            }
        }
        run(ms: 3000)
        let producer = try #require(h.core.producers["cam"])
        let consumer = try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer)
        #expect(Self.needed(h.log).last == ["camera_big"])
        let rates = consumer.layerBitrates(now: h.now)
        #expect(rates[0] == producer.streams[1].lastSendingBitrate / 8 && rates[0] > 0, "\(rates)")
        // Asked for again (the subscriber wants the small layer) and never sent: available for the grace…
        try h.core.setPreferredLayer("bob/cam", layer: "camera_small", now: h.now)
        run(ms: 200)
        #expect(Self.needed(h.log).last == ["camera_big", "camera_small"])
        #expect(consumer.layerBitrates(now: h.now)[0] > 0)
        // …then not.
        run(ms: Int(Producer.pausedLayerResumeGrace / 1000))
        #expect(consumer.layerBitrates(now: h.now)[0] == 0)
    }

    @Test func aScalableStreamNeedsEverySpatialLayerBelowTheOneWatched() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: VP9ForwardingTests.producer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: VP9ForwardingTests.subscriber(),
                               preferredLayer: "camera_medium", paused: false, now: h.now)
        h.advance(ms: 100)
        h.tick()
        #expect(Self.needed(h.log) == [["camera_medium", "camera_small"]])
    }
}
