import Foundation
@testable import SRTCCore
import SRTCAgents
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Opus in-band FEC tuned to the loss subscribers see (docs/network.md): the SDK publisher sends
/// speech (eSpeak NG) over a lossless uplink; the subscriber's downlink alone loses 10 % of its
/// datagrams at seeded random positions (`NetworkLab.Loss.seeded`). The server folds the
/// subscriber's reported loss into its reports to the publisher, whose encoder then plans FEC for
/// it; the subscriber rebuilds lost ticks from the next packet's LBRR. The same call with the
/// publisher not offering FEC, under the same seed, conceals more. RED and the subscriber's
/// audio NACK are off in both, so the difference is FEC's alone.
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns and nft"))
struct NetworkLabFECTests {
    static let lossSeconds = 15.0
    static let loss = NetworkLab.Loss.seeded(perMille: 100, seed: 26)
    static let text = "The quick brown fox jumps over the lazy dog. A network that loses packets should still carry "
        + "what people say: each packet brings a small copy of the one before, and the receiver rebuilds a lost one from it. "
        + "Forty two small boats sail across the harbour before the evening storm."

    struct Run: CustomStringConvertible {
        var fec: Bool
        var lost: Int
        var played: Int
        var concealed: Int
        var recoveredByFEC: Int
        /// Opus packets played in the measured window, and of those with LBRR.
        var packets: Int
        var withLBRR: Int
        /// LBRR packets played before the loss started (FEC planned for 0 %: none).
        var lbrrBeforeLoss: Int
        /// Seconds from the loss starting to the publisher's encoder planning for some.
        var secondsToExpectedLoss: Double
        /// The publisher's planned loss, percent: the highest seen and at the end of the window.
        var highestExpectedLoss: Int
        var inbandFEC: Bool

        /// Ticks concealed with nothing to rebuild them from (packet-loss concealment).
        var concealedWithoutFEC: Int { concealed - recoveredByFEC }
        var description: String {
            "FEC \(fec ? "offered" : "not offered") (encoder FEC \(inbandFEC ? "on" : "off")): \(lost) datagrams dropped; "
                + "expected loss > 0 after \(fmt(secondsToExpectedLoss)) s, highest \(highestExpectedLoss) %; audio \(played) played, "
                + "\(concealed) concealed, \(recoveredByFEC) of them rebuilt by FEC, \(concealedWithoutFEC) by PLC "
                + "(\(fmt(Double(concealedWithoutFEC) * 100 / Double(max(1, played + concealed)))) %); "
                + "\(withLBRR) of \(packets) packets with LBRR (\(lbrrBeforeLoss) before the loss)"
        }
    }

    @Test func fecTunedToTheSubscribersLossConcealsLessSpeechThanNoFECUnderTheSameLoss() async throws {
        let speech = try ESpeakTextToSpeech().synthesize(Self.text)
        var runs: [Run] = []
        for fec in [true, false] {
            let call = try await LabCall(subscriberRedundantAudio: false, publisherRedundantAudio: false, subscriberAudioNACK: false,
                                         publisherInbandFEC: fec, video: false, audioClip: (speech.samples, speech.sampleRate))
            runs.append(try await ending(call) { try await measure($0, fec: fec) })
        }
        print("network lab, Opus in-band FEC, speech, 10 % seeded random loss toward the subscriber only, \(fmt(Self.lossSeconds)) s each:\n  "
            + runs.map(\.description).joined(separator: "\n  "))
        let with = runs[0], without = runs[1]
        for run in runs {
            #expect(run.lost > 0, "the rule dropped nothing: \(run)")
            // The downlink's loss reached the publisher through the server's reports.
            #expect(run.highestExpectedLoss > 0, "\(run)")
            #expect(run.inbandFEC == run.fec, "\(run)")
        }
        // With FEC: none planned before the loss, LBRR arrived under it and rebuilt ticks.
        #expect(with.lbrrBeforeLoss == 0, "\(with)")
        #expect(with.withLBRR > 0 && with.recoveredByFEC > 0, "\(with)")
        #expect(without.withLBRR == 0 && without.recoveredByFEC == 0, "\(without)")
        // Fewer ticks concealed without anything to rebuild them from than with no FEC at all,
        // with a margin: under half (measured: about a fifth).
        #expect(with.concealedWithoutFEC * 2 < without.concealedWithoutFEC, "\(with) / \(without)")
    }

    private func measure(_ call: LabCall, fec: Bool) async throws -> Run {
        let observer = call.observer
        let audio = try #require(call.publishedAudio)
        try await eventually(timeout: 20, "audio playing") { observer.audioPlayout(from: 0, to: observer.elapsed).played > 100 }
        let beforeLoss = observer.opusPackets
        try call.loseDownlink(Self.loss)
        let lossStart = observer.elapsed
        try await eventually(timeout: 15, "the publisher plans for loss") { audio.sendStatistics.expectedPacketLossPercent > 0 }
        let secondsToExpectedLoss = observer.elapsed - lossStart
        var highest = audio.sendStatistics.expectedPacketLossPercent
        let start = observer.elapsed
        let packetsAtStart = observer.opusPackets
        let end = start + Self.lossSeconds
        while observer.elapsed < end {
            try await Task.sleep(for: .milliseconds(250))
            highest = max(highest, audio.sendStatistics.expectedPacketLossPercent)
        }
        let packetsAtEnd = observer.opusPackets
        let lost = call.lab.lostDatagrams(call.link)
        try call.loseDownlink(nil)
        let playout = observer.audioPlayoutWithFEC(from: start, to: end)
        return Run(fec: fec, lost: lost, played: playout.played, concealed: playout.concealed, recoveredByFEC: playout.recoveredByFEC,
                   packets: packetsAtEnd.packets - packetsAtStart.packets, withLBRR: packetsAtEnd.withLBRR - packetsAtStart.withLBRR,
                   lbrrBeforeLoss: beforeLoss.withLBRR, secondsToExpectedLoss: secondsToExpectedLoss, highestExpectedLoss: highest,
                   inbandFEC: audio.sendStatistics.inbandFEC)
    }
}
