import Foundation
@testable import SRTCCore
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// Layer adaptation through a real kernel bottleneck (docs/network.md): a `LabCall` (server in a
/// namespace, SDK publisher and subscriber in this one) whose server side a `tc` tbf limits.
/// The scenarios are in `NetworkLabLayerTests+Scenarios.swift`, in this suite so that no two lab
/// calls run at once. Each prints its figures (docs/network.md keeps a table of them).
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns"))
struct NetworkLabLayerTests {
    static let unlimitedSeconds = 12.0
    static let limitedSeconds = 10.0

    @Test func aSubscriberKeepsTheBigLayerGoesDownUnder250kbitAndComesBack() async throws {
        try await withLabCall { try await run($0) }
    }

    private func run(_ call: LabCall) async throws {
        let observer = call.observer
        // Unlimited: the big layer throughout, no switch for bandwidth.
        try await call.waitForBigFrames()
        let unlimitedStart = observer.elapsed
        try await Task.sleep(for: .seconds(Self.unlimitedSeconds))
        let firstPhase = observer.switches.filter { $0.cause == "bandwidth" }
        #expect(firstPhase.isEmpty, "switched for bandwidth on an unlimited link: \(firstPhase)")
        let bigFrames = observer.frameCount(from: unlimitedStart, to: observer.elapsed, width: 640)
        #expect(bigFrames >= Int(Self.unlimitedSeconds) * 15, "\(bigFrames) big frames in \(Self.unlimitedSeconds) s")

        // 250 kbit/s toward the subscriber: down to the small layer.
        let limitedAt = observer.elapsed
        try call.limitDownlink(250_000)
        let (down, _) = try await observer.switched(since: limitedAt, to: TrackDescName.cameraSmall, width: 160, timeout: 10)
        let remaining = Self.limitedSeconds - (observer.elapsed - limitedAt)
        if remaining > 0 { try await Task.sleep(for: .seconds(remaining)) }
        let queue = call.downlinkQueue

        // Unlimited again: back to the big layer.
        let restoredAt = observer.elapsed
        try call.limitDownlink(nil)
        let (up, bigAgain) = try await observer.switched(since: restoredAt, to: TrackDescName.cameraBig, width: 640, timeout: 25)

        print("""
            network lab: unlimited \(Self.unlimitedSeconds) s: \(bigFrames) frames of 640×360, \(firstPhase.count) bandwidth switches
              250 kbit/s: layer_switched camera_small \(fmt(down.time - limitedAt)) s after the limit
              unlimited again: layer_switched camera_big \(fmt(up.time - restoredAt)) s after, first 640×360 frame \(fmt(bigAgain - restoredAt)) s after
              switches: \(observer.switches.map(\.description).joined(separator: ", "))
              tbf: \(queue)
            """)
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
