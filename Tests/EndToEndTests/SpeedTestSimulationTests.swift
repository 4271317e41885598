import Foundation
import RTCNet
import RTCWire
import SRTCProtocol
import SRTCTestSupport
import Testing
@testable import SRTCCore
@testable import SRTCSpeedTest
@testable import SRTCServer

/// The client machine against the server's responder in virtual time, through `LinkShaper`s:
/// no sockets, no clock, so each figure can be checked against the path that produced it.
@Suite struct SpeedTestSimulationTests {
    struct Outcome {
        var result: SpeedTestResult?
        var error: SRTCError?
        var progress: [SpeedTestProgress] = []
        /// Probes that left and that arrived, each way (what the path really lost).
        var pings = (sent: 0, arrived: 0), pongs = (sent: 0, arrived: 0)
    }

    /// Runs one test over a path of `up` and `down`, 1 ms steps, 5 ms one-way propagation.
    static func run(up: LinkShaper.Shape, down: LinkShaper.Shape, expected: Int, duration: Double = 4,
                    settings: SpeedTestSettings = SpeedTestSettings(), token: String? = nil) -> Outcome {
        let client = SocketAddress(ip: "10.0.0.2", port: 4000)!
        let now0 = Int64(Date().timeIntervalSince1970)
        let token = token ?? AccessToken.sign(TokenClaims(iss: "app", sub: "u", iat: now0, nbf: now0, exp: now0 + 60, jti: "j",
                                                          speedTest: SpeedTestGrant()), key: "k")
        let responder = SpeedTestResponder(settings: settings, keyForIssuer: { $0 == "app" ? "k" : nil })
        var machine = SpeedTestMachine(params: SpeedTestParams(serverAddress: "x", token: token, duration: duration,
                                                               expectedUplinkBitrate: expected, expectedDownlinkBitrate: expected).clamped)
        var uplink = LinkShaper(up, seed: 1), downlink = LinkShaper(down, seed: 2)
        // Datagrams released by a shaper, delivered after the propagation delay.
        var toServer: [(at: UInt64, bytes: [UInt8])] = [], toClient: [(at: UInt64, bytes: [UInt8])] = []
        var outcome = Outcome()
        func record(_ event: SpeedTestMachine.Event?) {
            switch event {
            case .progress(let p): outcome.progress.append(p)
            case .finished(let r): outcome.result = r
            case .failed(let e): outcome.error = e
            case nil: break
            }
        }
        var now: UInt64 = 1_000_000
        let clientSend: SpeedTestMachine.Send = { packet in
            if packet.kind == .ping { outcome.pings.sent += 1 }
            packet.bytes.withUnsafeBytes { if let out = uplink.offer($0, now: now) { toServer.append((now + 5000, out)) } }
        }
        let serverSend: SpeedTestResponder.Send = { _, write in
            var slot = [UInt8](repeating: 0, count: 2048)
            let length = slot.withUnsafeMutableBytes { write($0) } ?? 0
            if slot[2] == SpeedTestPacket.Kind.pong.rawValue { outcome.pongs.sent += 1 }
            slot.prefix(length).withUnsafeBytes { if let out = downlink.offer($0, now: now) { toClient.append((now + 5000, out)) } }
            return true
        }
        machine.start(now: now, send: clientSend)
        while outcome.result == nil, outcome.error == nil, now < 60_000_000 {
            now += 1000
            for d in uplink.due(now: now) { toServer.append((d.departure + 5000, d.bytes)) }
            for d in downlink.due(now: now) { toClient.append((d.departure + 5000, d.bytes)) }
            while let first = toServer.first, first.at <= now {
                toServer.removeFirst()
                if first.bytes[2] == SpeedTestPacket.Kind.ping.rawValue { outcome.pings.arrived += 1 }
                first.bytes.withUnsafeBytes { responder.receive($0, from: client, now: now, send: serverSend) }
            }
            while let first = toClient.first, first.at <= now {
                toClient.removeFirst()
                if first.bytes[2] == SpeedTestPacket.Kind.pong.rawValue { outcome.pongs.arrived += 1 }
                if let packet = try? SpeedTestPacket(bytes: first.bytes) { record(machine.receive(packet, now: now, send: clientSend)) }
            }
            if now % 2000 == 0 { record(machine.tick(now: now, send: clientSend)) }
            if now % 10_000 == 0 { responder.tick(now: now, send: serverSend) }
        }
        return outcome
    }

    @Test(arguments: [(1_000_000, 0.0, 0.0), (3_000_000, 0.02, 0.05), (10_000_000, 0.10, 0.01)])
    func measuresWhatThePathDoes(limit: Int, upLoss: Double, downLoss: Double) throws {
        let outcome = Self.run(up: .init(bitrate: limit, lossRate: upLoss), down: .init(bitrate: limit, lossRate: downLoss), expected: 2 * limit)
        let result = try #require(outcome.result)
        #expect(abs(Double(result.uplink.bandwidth) / Double(limit) - 1) < 0.05, "uplink \(result.uplink.bandwidth)")
        #expect(abs(Double(result.downlink.bandwidth) / Double(limit) - 1) < 0.05, "downlink \(result.downlink.bandwidth)")
        // The loss reported is exactly the probes' loss on each way, and that is near the path's rate.
        let upLost = 1 - Double(outcome.pings.arrived) / Double(outcome.pings.sent)
        let downLost = 1 - Double(outcome.pongs.arrived) / Double(outcome.pongs.sent)
        #expect(abs(result.uplink.packetLossRate - upLost) < 1e-9)
        #expect(abs(result.downlink.packetLossRate - downLost) < 1e-9)
        #expect(outcome.pings.sent >= 470)
        #expect(abs(upLost - upLoss) < 0.04 && abs(downLost - downLoss) < 0.04)
        // 10 ms of propagation plus two 64-byte transmissions and up to a 1 ms step each way.
        #expect(result.rttMs >= 10 && result.rttMs < 14, "rtt \(result.rttMs)")
    }

    @Test func bandwidthCannotExceedWhatWasSentAndTheGradeSaysSo() throws {
        // A 10 Mbps path tested at 1 Mbps measures about 1 Mbps, and meets the expectation.
        let outcome = Self.run(up: .init(bitrate: 10_000_000), down: .init(bitrate: 10_000_000), expected: 1_000_000)
        let result = try #require(outcome.result)
        #expect(abs(Double(result.uplink.bandwidth) / 1_000_000 - 1) < 0.05)
        #expect(result.quality == .excellent)
        #expect(outcome.progress.first?.phase == .latency && outcome.progress.last?.phase == .downlink)
    }

    @Test func aDeadPathFailsWithATimeoutAndABadTokenGetsNoAnswer() {
        let dead = Self.run(up: .init(bitrate: 1_000_000, lossRate: 1), down: .init(bitrate: 1_000_000), expected: 1_000_000)
        #expect(dead.error?.code == 1006)
        let forged = Self.run(up: .init(bitrate: 1_000_000), down: .init(bitrate: 1_000_000), expected: 1_000_000, token: "a.b.c")
        #expect(forged.error?.code == 1006)
    }

    @Test func aRefusedTokenFailsWithTheServersCode() {
        var settings = SpeedTestSettings()
        settings.maxSessions = 0
        let outcome = Self.run(up: .init(bitrate: 1_000_000), down: .init(bitrate: 1_000_000), expected: 1_000_000, settings: settings)
        #expect(outcome.error == .server(code: 42901, message: "the server refused the speed test: limit_reached"))
    }

    @Test(arguments: [
        (0.0, 20.0, 1.0, 2.0, SpeedTestQuality.excellent), (0.02, 150.0, 10.0, 0.8, .good), (0.05, 50.0, 10.0, 1.0, .poor),
        (0.12, 50.0, 10.0, 1.0, .bad), (0.20, 50.0, 10.0, 1.0, .veryBad), (0.0, 600.0, 10.0, 1.0, .veryBad), (0.0, 20.0, 1.0, 0.4, .bad),
    ])
    func gradesFollowTheDocumentedTable(loss: Double, rtt: Double, jitter: Double, share: Double, expected: SpeedTestQuality) {
        let link = SpeedTestLinkReport(bandwidth: Int(share * 1_000_000), packetLossRate: loss, jitterMs: jitter)
        #expect(SpeedTestGrade.grade(rttMs: rtt, uplink: link, downlink: link, expectedUplink: 1_000_000, expectedDownlink: 1_000_000,
                                     probesReturned: true) == expected)
        #expect(SpeedTestGrade.grade(rttMs: rtt, uplink: link, downlink: link, expectedUplink: 1, expectedDownlink: 1, probesReturned: false) == .down)
    }
}
