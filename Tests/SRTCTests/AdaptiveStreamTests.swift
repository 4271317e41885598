import Testing
@testable import SRTCCore

/// Adaptive stream's rules (docs/sdk-srtc.md "Adaptive stream"), the same as the web SDK's
/// `layerForWidth` and `#wanted` (web/srtc/adaptive-stream.js).
@Suite struct AdaptiveStreamTests {
    static let simulcast = [SimulcastLayer(rid: "h", desc: "camera_big", width: 640, height: 360),
                            SimulcastLayer(rid: "l", desc: "camera_small", width: 160, height: 90)]

    static func shown(_ widths: Int...) -> AdaptiveStream.Demand { AdaptiveStream.Demand(shownWidths: widths) }

    @Test(arguments: [
        (shown: [100], expected: AdaptiveLayerChoice.layer("camera_small")),
        (shown: [160], expected: .layer("camera_small")),
        (shown: [161], expected: .layer("camera_big")),
        (shown: [1920], expected: .layer("camera_big")),          // wider than every layer: the widest
        (shown: [100, 400], expected: .layer("camera_big")),     // the widest shown renderer counts
        (shown: [], expected: .paused),                          // nothing shows it
        (shown: [0], expected: .paused),                         // a zero-width renderer shows nothing
    ])
    func theSmallestLayerThatFillsTheWidestShownRenderer(shown: [Int], expected: AdaptiveLayerChoice) {
        #expect(AdaptiveStream.choice(layers: Self.simulcast, demand: AdaptiveStream.Demand(shownWidths: shown)) == expected)
    }

    @Test func aRendererThatIsNotSizedNeedsTheBestLayer() {
        let demand = AdaptiveStream.Demand(shownWidths: [100], needsEverything: true)
        #expect(AdaptiveStream.choice(layers: Self.simulcast, demand: demand) == .best)
        #expect(AdaptiveStream.choice(layers: Self.simulcast, demand: AdaptiveStream.Demand(needsEverything: true)) == .best)
    }

    @Test func aTrackWithoutTwoSizedLayersIsAskedForAtItsBestOrPaused() {
        let single = [SimulcastLayer(rid: "h", desc: "camera_big", width: 640, height: 360)]
        let unsized = [SimulcastLayer(rid: "h", desc: "camera_big"), SimulcastLayer(rid: "l", desc: "camera_small")]
        #expect(AdaptiveStream.choice(layers: [], demand: Self.shown(100)) == .best)
        #expect(AdaptiveStream.choice(layers: single, demand: Self.shown(100)) == .best)
        #expect(AdaptiveStream.choice(layers: unsized, demand: Self.shown(100)) == .best)
        #expect(AdaptiveStream.choice(layers: single, demand: Self.shown()) == .paused)
    }

    @Test func theRequestValuesAreTheProtocols() {
        #expect(AdaptiveLayerChoice.paused.requestValue == "none")
        #expect(AdaptiveLayerChoice.best.requestValue == nil)
        #expect(AdaptiveLayerChoice.layer("camera_small").requestValue == "camera_small")
    }

    @Test func aChoiceIsRequestedOnceAfterItHeldForATick() {
        var adaptive = AdaptiveStream()
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(160)) == nil)          // first seen: wait a tick
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(160)) == .layer("camera_small"))
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(150)) == nil)          // same layer: nothing to ask
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(640)) == nil)
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(640)) == .layer("camera_big"))
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown()) == nil)
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown()) == .paused)
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown()) == nil)             // asked once
    }

    @Test func aResizeInProgressSendsOneRequest() {
        var adaptive = AdaptiveStream()
        var requests: [AdaptiveLayerChoice] = []
        // Widths while a window is dragged: small, big, small, big... then it settles on big.
        for width in [100, 700, 120, 700, 700, 700] {
            if let choice = adaptive.tick(layers: Self.simulcast, demand: Self.shown(width)) { requests.append(choice) }
        }
        #expect(requests == [.layer("camera_big")])
    }

    @Test func aFailedRequestIsAskedAgainAndAResetAppliesAfresh() {
        var adaptive = AdaptiveStream()
        _ = adaptive.tick(layers: Self.simulcast, demand: Self.shown(160))
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(160)) == .layer("camera_small"))
        adaptive.requestFailed(.layer("camera_small"))
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(160)) == .layer("camera_small"))
        adaptive.reset()   // a new subscription
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(160)) == nil)
        #expect(adaptive.tick(layers: Self.simulcast, demand: Self.shown(160)) == .layer("camera_small"))
    }
}
