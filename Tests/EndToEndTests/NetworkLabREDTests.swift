import Foundation
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// Redundant audio (RFC 2198) end to end through the lab (docs/network.md, "RED"): the SDK
/// publisher sends Opus in RED, the SFU forwards RED to a subscriber that negotiated it and the
/// primary block alone to one that did not; under random loss on the subscriber's downlink
/// (`NetworkLab.setLoss`) the RED subscriber rebuilds most lost packets from the next packet and
/// conceals fewer 20 ms ticks. Four calls: RED or not, each without and with NACK for audio
/// (without NACK the difference is RED's alone, and is asserted; with NACK it is printed).
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns and nft"))
struct NetworkLabREDTests {
    static let lossSeconds = 15.0
    static let loss = NetworkLab.Loss.random(perMille: 200)

    @Test func aSubscriberWithREDConcealsFewerTicksUnder20PercentRandomLoss() async throws {
        var runs: [LabScenario.AudioLoss] = []
        for (red, nack) in [(true, false), (false, false), (true, true), (false, true)] {
            let call = try await LabCall(subscriberRedundantAudio: red, subscriberAudioNACK: nack)
            do {
                runs.append(try await measure(call, red: red, nack: nack))
                await call.end()
            } catch {
                await call.end()
                throw error
            }
        }
        print("network lab, 20 % random loss toward the subscriber, \(fmt(Self.lossSeconds)) s each:\n  "
            + runs.map(\.description).joined(separator: "\n  "))
        for run in runs { #expect(run.lost > 0, "the rule dropped nothing: \(run)") }
        // RED reached the subscribers that negotiated it, and only those.
        for run in runs { #expect((run.recoveredByRED > 0) == run.red, "\(run)") }
        // RED alone: the direction, with a margin (fewer than half the ticks concealed).
        let with = runs[0], without = runs[1]
        #expect(with.concealed * 2 < without.concealed, "\(with) / \(without)")
    }

    /// RED added by the SFU (docs/network.md, "RED added by the SFU"): the publisher sends plain
    /// Opus (RED off); the SFU wraps it in RED toward the subscriber that negotiated RED once its
    /// receiver reports show the loss. Two calls, neither subscriber with NACK for audio; the
    /// first 3 s of loss (the reports' interval, then RED turning on) are left out of both.
    @Test func aPlainOpusPublishersLossySubscriberGetsREDFromTheSFU() async throws {
        var runs: [LabScenario.AudioLoss] = []
        for red in [true, false] {
            let call = try await LabCall(subscriberRedundantAudio: red, publisherRedundantAudio: false, subscriberAudioNACK: false)
            do {
                runs.append(try await measure(call, red: red, nack: false, settle: 3))
                await call.end()
            } catch {
                await call.end()
                throw error
            }
        }
        print("network lab, plain-Opus publisher, 20 % random loss toward the subscriber, \(fmt(Self.lossSeconds)) s each "
            + "(RED added by the SFU):\n  " + runs.map(\.description).joined(separator: "\n  "))
        let with = runs[0], without = runs[1]
        for run in runs { #expect(run.lost > 0, "the rule dropped nothing: \(run)") }
        #expect(with.recoveredByRED > 0, "\(with)")
        #expect(without.recoveredByRED == 0, "\(without)")
        // The direction, with a margin: at most two thirds of the ticks concealed.
        #expect(with.concealed * 3 < without.concealed * 2, "\(with) / \(without)")
    }

    /// `LabScenario.audioLoss` with this suite's loss and length.
    private func measure(_ call: LabCall, red: Bool, nack: Bool, settle: Double = 0) async throws -> LabScenario.AudioLoss {
        try await LabScenario.audioLoss(call, loss: Self.loss, seconds: Self.lossSeconds, settle: settle, red: red, nack: nack)
    }
}
