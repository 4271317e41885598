import Testing
@testable import SFU

/// Dynacast: every 100 ms the router tells which layers of a layered producer anyone needs
/// (`SFUEvent.layersNeeded`), only when that changed.
struct DynacastTests {
    typealias H = SFUHarness

    static func needed(_ log: EventLog) -> [[String]] {
        log.events.compactMap { if case .layersNeeded(_, _, let layers) = $0 { return layers } else { return nil } }
    }

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
