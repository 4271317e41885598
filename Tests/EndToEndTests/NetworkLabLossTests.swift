import Foundation
@testable import SRTCCore
import SRTCLab
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

    /// Loss on a link with room to spare is not congestion (docs/network.md, "Loss is not
    /// congestion"): the subscriber keeps the big layer through 12 s of 10 % loss in bursts of
    /// 10, then 12 s of 5 % random loss, and the frames it decodes keep their order.
    @Test func lossThatIsNotCongestionKeepsTheBigLayer() async throws {
        try await withLabCall { call in
            let observer = call.observer
            try await call.waitForBigFrames()
            try await Task.sleep(for: .seconds(4))  // past the allocator's startup grace
            let start = observer.elapsed
            var lines: [String] = []
            for (name, loss) in [("10 % in bursts of 10", NetworkLab.Loss.burst(length: 10, period: 100)), ("5 % random", .random(perMille: 50))] {
                try call.loseDownlink(loss)
                let from = observer.elapsed
                try await Task.sleep(for: .seconds(12))
                let to = observer.elapsed
                let lost = call.lab.lostDatagrams(call.link)
                try call.loseDownlink(nil)
                let big = observer.frameCount(from: from, to: to, width: 640)
                let all = observer.frameCount(from: from, to: to)
                let playout = observer.audioPlayout(from: from, to: to)
                lines.append("\(name), \(fmt(to - from)) s: \(lost) datagrams dropped; video \(all) frames (\(big) of 640×360, "
                    + "\(fmt(Double(all) / (to - from)))/s), worst gap \(fmt(observer.worstVideoGap(from: from, to: to))) s; "
                    + "audio \(playout.played) played, \(playout.concealed) concealed, \(playout.recovered) recovered by NACK, \(playout.recoveredByRED) by RED")
                #expect(lost > 0, "\(name): the rule dropped nothing")
                #expect(all > 0 && big == all, "\(name): \(all - big) of \(all) frames of another size")
                try await Task.sleep(for: .seconds(2))  // the link clean between phases
            }
            let end = observer.elapsed
            let switches = observer.switches.filter { $0.time >= start && $0.cause == "bandwidth" }
            let numbers = observer.numbers.filter { $0.time >= start && $0.time <= end }.map(\.number)
            let outOfOrder = zip(numbers, numbers.dropFirst()).filter { $0.1 <= $0.0 }.count
            print("network lab, loss that is not congestion on an unlimited link:\n  " + lines.joined(separator: "\n  ")
                + "\n  \(switches.count) switches for bandwidth; \(numbers.count) frame numbers read, \(outOfOrder) out of order"
                + "\n  switches: \(observer.switches.map(\.description).joined(separator: ", "))")
            #expect(switches.isEmpty, "switched for bandwidth under loss without congestion: \(switches)")
            #expect(numbers.count > 100, "\(numbers.count) frame numbers read")
            #expect(outOfOrder == 0, "\(outOfOrder) frames decoded out of order")
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
