import Foundation
@testable import SRTCCore
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// Loss on the subscriber's downlink through the lab (docs/network.md): the kernel drops a share
/// of what the server sends to the subscriber's address (`NetworkLab.setLoss`, nftables), at
/// random or in bursts. Audio asks for lost Opus packets by NACK and the SFU resends them from
/// its cache; video does the same (and a key frame when a packet cannot come back). Each phase
/// prints what the subscriber played and decoded.
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns and nft"))
struct NetworkLabLossTests {
    static let phaseSeconds = 8.0

    struct Phase: CustomStringConvertible {
        var name: String
        var lost: Int
        var played: Int
        var concealed: Int
        var recovered: Int
        var audioPackets: Int
        var frames: Int
        var worstGap: Double

        /// Share of 20 ms ticks concealed, and what it would have been without the NACKs.
        var concealment: Double { Double(concealed) / Double(max(1, played + concealed)) }
        var concealmentWithoutNACK: Double { Double(concealed + recovered) / Double(max(1, played + concealed)) }

        var description: String {
            "\(name): \(lost) datagrams dropped; audio \(played) played, \(concealed) concealed (\(fmt(concealment * 100)) %), "
                + "\(recovered) recovered by NACK (without: \(fmt(concealmentWithoutNACK * 100)) %), \(audioPackets) packets; "
                + "video \(frames) frames (\(fmt(Double(frames) / NetworkLabLossTests.phaseSeconds))/s), worst gap \(fmt(worstGap)) s"
        }
    }

    @Test func audioAndVideoRecoverLostPacketsByNACKUnderRandomAndBurstLoss() async throws {
        // Without RED: a lost audio packet here comes back by NACK or not at all (RED has its own test).
        try await withLabCall(subscriberRedundantAudio: false) { try await run($0) }
    }

    /// Random loss on a link with room to spare is not congestion (docs/network.md, "Random loss
    /// is not congestion"): the subscriber keeps the big layer through 15 s of 5 % loss.
    @Test func fivePercentRandomLossOnAWideLinkKeepsTheBigLayer() async throws {
        try await withLabCall { call in
            let observer = call.observer
            try await call.waitForBigFrames()
            try await Task.sleep(for: .seconds(4))  // past the allocator's startup grace
            try call.loseDownlink(.random(perMille: 50))
            let start = observer.elapsed
            try await Task.sleep(for: .seconds(15))
            let end = observer.elapsed
            let lost = call.lab.lostDatagrams(call.link)
            try call.loseDownlink(nil)
            let switches = observer.switches.filter { $0.time >= start && $0.cause == "bandwidth" }
            let big = observer.frameCount(from: start, to: end, width: 640)
            let all = observer.frameCount(from: start, to: end)
            let playout = observer.audioPlayout(from: start, to: end)
            print("""
                network lab, 5 % random loss on an unlimited link, \(fmt(end - start)) s: \(lost) datagrams dropped, \(switches.count) switches for bandwidth
                  video \(all) frames (\(big) of 640×360, \(fmt(Double(all) / (end - start)))/s), worst gap \(fmt(observer.worstVideoGap(from: start, to: end))) s
                  audio \(playout.played) played, \(playout.concealed) concealed, \(playout.recovered) recovered by NACK
                  switches: \(observer.switches.map(\.description).joined(separator: ", "))
                """)
            #expect(lost > 0, "the rule dropped nothing")
            #expect(switches.isEmpty, "switched for bandwidth under random loss: \(switches)")
            #expect(big > 0 && big == all, "\(all - big) frames of another size")
        }
    }

    private func run(_ call: LabCall) async throws {
        let observer = call.observer
        try await call.waitForBigFrames()
        try await Task.sleep(for: .seconds(4))  // past the allocator's startup grace
        var phases: [Phase] = []
        for (name, loss) in [("no loss", nil), ("5 % random", NetworkLab.Loss.random(perMille: 50)),
                             ("10 % in bursts of 10", .burst(length: 10, period: 100)), ("20 % random", .random(perMille: 200))] {
            try call.loseDownlink(loss)
            let start = observer.elapsed
            try await Task.sleep(for: .seconds(Self.phaseSeconds))
            let end = observer.elapsed
            let lost = call.lab.lostDatagrams(call.link)
            try call.loseDownlink(nil)
            let playout = observer.audioPlayout(from: start, to: end)
            phases.append(Phase(name: name, lost: lost, played: playout.played, concealed: playout.concealed, recovered: playout.recovered,
                                audioPackets: observer.audioPackets(from: start, to: end), frames: observer.frameCount(from: start, to: end),
                                worstGap: observer.worstVideoGap(from: start, to: end)))
            try await Task.sleep(for: .seconds(3))  // the link clean again between phases
        }
        print("network lab, loss toward the subscriber (\(fmt(Self.phaseSeconds)) s each):\n  "
            + phases.map(\.description).joined(separator: "\n  ")
            + "\n  switches: \(observer.switches.map(\.description).joined(separator: ", "))")

        let clean = phases[0], random5 = phases[1], burst = phases[2]
        #expect(clean.lost == 0)
        for phase in phases.dropFirst() { #expect(phase.lost > 0, "\(phase.name): the rule dropped nothing") }
        // Lost audio came back by NACK in time to be played (each one a tick not concealed).
        #expect(random5.recovered > 0, "\(random5)")
        #expect(burst.recovered > 0, "\(burst)")
        // Video went on decoding through 5 % loss.
        #expect(random5.frames > 0, "\(random5)")
    }
}
