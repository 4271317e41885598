import Foundation
import SRTC
import SRTCLab
import SRTCTestSupport
import Testing

/// The lab's userspace link in the path (docs/network.md, "The lab"): the subscriber's media passes
/// `srtc-lab-relay` in the server's namespace, which delays each direction by 20 ms with up to 5 ms
/// of jitter (datagrams reordered) and loses, toward the subscriber, 5 % at random, then 10 % in
/// bursts of 10. The call goes on: lost audio comes back by RED and NACK, video by NACK and key
/// frames, and the relay counted what it lost. Loss through the relay is not congestion (its delay
/// stays flat): no `layer_switched` for bandwidth from the first loss phase on (docs/network.md,
/// "Loss is not congestion").
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns and nft"))
struct NetworkLabRelayTests {
    static let phaseSeconds = 10.0

    @Test func aSubscriberThroughTheRelayRecoversRandomAndBurstLossWithDelayAndReordering() async throws {
        try await ending(try await LabCall(subscriberThroughRelay: true)) { call in
            let observer = call.observer
            let relay = try #require(call.relay)
            let path = LinkShaper.Shape(jitterMilliseconds: 5, delayMilliseconds: 20)
            try relay.shape(downlink: path, uplink: path)
            try await call.waitForBigFrames()
            let flows = try relay.counters().flows
            #expect(flows >= 1, "the subscriber's media passes the relay (\(flows) flows)")
            try await Task.sleep(for: .seconds(4))  // past the allocator's startup grace
            let lossStart = observer.elapsed
            var lines: [String] = []
            for (name, lossy) in [("5 % random", LinkShaper.Shape(lossRate: 0.05, jitterMilliseconds: 5, delayMilliseconds: 20)),
                                  ("10 % in bursts of 10", LinkShaper.Shape(jitterMilliseconds: 5, delayMilliseconds: 20,
                                                                            burstLength: 10, burstPeriod: 100))] {
                try relay.shape(downlink: lossy, uplink: path)
                let from = observer.elapsed
                let repairBefore = call.subscriber.receiveRepair ?? ReceiveRepairCounts()
                try await Task.sleep(for: .seconds(Self.phaseSeconds))
                let to = observer.elapsed
                let repairAfter = call.subscriber.receiveRepair ?? ReceiveRepairCounts()
                let counters = try relay.counters()
                try relay.shape(downlink: path, uplink: path)
                let down = counters.downlink
                let playout = observer.audioPlayout(from: from, to: to)
                let concealment = Double(playout.concealed) / Double(max(1, playout.played + playout.concealed))
                let frames = observer.frameCount(from: from, to: to)
                let gap = observer.worstVideoGap(from: from, to: to)
                lines.append("\(name): the relay lost \(down.randomlyLost + down.burstLost) of \(down.offered) datagrams; audio "
                    + "\(playout.played) played, \(playout.concealed) concealed (\(fmt(concealment * 100)) %), \(playout.recovered) "
                    + "recovered by NACK, \(playout.recoveredByRED) by RED; video \(frames) frames (\(fmt(Double(frames) / (to - from)))/s), "
                    + "worst gap \(fmt(gap)) s; NACKed audio \(repairAfter.nackedAudio - repairBefore.nackedAudio), video "
                    + "\(repairAfter.nackedVideo - repairBefore.nackedVideo); resent copies of packets that had arrived (replays) audio "
                    + "\(repairAfter.replayedAudio - repairBefore.replayedAudio), video \(repairAfter.replayedVideo - repairBefore.replayedVideo)")
                #expect(down.randomlyLost + down.burstLost > 0, "\(name): the relay lost nothing")
                #expect(playout.recovered + playout.recoveredByRED > 0, "\(name): no lost audio came back")
                // Single losses come back (RED, NACK within the 60 ms playout buffer); a burst of 10
                // datagrams takes about four audio packets in a row, of which RED rebuilds the last
                // and NACK, a 40 ms round trip later, often comes too late: 10.6 % concealed in the
                // first run (docs/network.md, figures). Asserted: under 3 % for random loss, and
                // under the burst phase's loss for bursts.
                #expect(concealment < (down.burstLost > 0 ? 0.15 : 0.03), "\(name): \(fmt(concealment * 100)) % of ticks concealed")
                #expect(Double(frames) > Self.phaseSeconds * 10, "\(name): \(frames) frames")
                #expect(gap < 1.0, "\(name): video stalled \(fmt(gap)) s")
                try await Task.sleep(for: .seconds(2))  // the path clean between phases
            }
            print("network lab, through the relay (20 ms each way, 5 ms jitter), loss toward the subscriber, \(fmt(Self.phaseSeconds)) s each:\n  "
                + lines.joined(separator: "\n  ") + "\n  switches: \(observer.switches.map(\.description).joined(separator: ", "))")
            let down = observer.switches.filter { $0.time >= lossStart && $0.cause == "bandwidth" }
            #expect(down.isEmpty, "switched for bandwidth under loss alone: \(down.map(\.description).joined(separator: ", "))")
        }
    }
}
