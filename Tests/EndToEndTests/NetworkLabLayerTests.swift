import Foundation
import SRTCProtocol
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Layer adaptation through a real kernel bottleneck (docs/network.md): a `LabCall` (server in a
/// namespace, SDK publisher and subscriber in this one) whose server side a `tc` tbf limits.
/// The scenarios are in `NetworkLabLayerTests+Scenarios.swift`, in this serialized suite so that
/// no two layer calls run at once (`make test` runs this suite beside one other lab suite: two at
/// once, the layer tests' delay bound failed once). Each prints its figures (docs/network.md keeps
/// a table of them).
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns"))
struct NetworkLabLayerTests {
    /// The false switch down: an unlimited link keeps the big layer for a 60 s call.
    static let unlimitedSeconds = 60.0
    static let limitedSeconds = 10.0
    /// The most the quickest frame of the limited phase's last 3 s may take from push to decode,
    /// once the layer fits the link (the issue: "no growing delay after adaptation"); below the
    /// 200 ms a full tbf queue adds to every frame.
    static let drainedDelayMs = 100.0

    @Test func aSubscriberKeepsTheBigLayerGoesDownUnder250kbitAndComesBack() async throws {
        try await withLabCall { call in
            let figures = try await LabScenario.adaptation(call, unlimitedSeconds: Self.unlimitedSeconds, limitedSeconds: Self.limitedSeconds)
            print(figures)
            // Unlimited: the big layer throughout, no switch for bandwidth.
            #expect(figures.unlimitedSwitches.isEmpty, "switched for bandwidth on an unlimited link: \(figures.unlimitedSwitches)")
            #expect(figures.bigFrames >= Int(Self.unlimitedSeconds) * 15, "\(figures.bigFrames) big frames in \(Self.unlimitedSeconds) s")
            // Down under the limit and back up after it were waited for (the scenario throws otherwise).
            // No standing queue after the switch down: the tbf holds up to 200 ms, and a layer still
            // too large for the link would keep every frame that late; a probe's burst delays a few
            // (medians over the last 3 s seen 7–100 ms, lowest 3–8 ms, printed).
            #expect(figures.delayLimitedEndLowest < Self.drainedDelayMs, "video at least \(fmt(figures.delayLimitedEndLowest)) ms late at the limit's end")
        }
    }

    @Test func theLabRemovesWhatItMade() throws {
        let lab = NetworkLab()
        let link = try lab.addNamespace()
        #expect(NetworkLab.existingNamespaces().contains(link.namespace))
        try lab.limit(link, side: .inside, rate: 250_000)
        #expect(lab.queueStatistics(link, side: .inside).contains("tbf"))
        lab.remove()
        #expect(!NetworkLab.existingNamespaces().contains(link.namespace))
    }
}
