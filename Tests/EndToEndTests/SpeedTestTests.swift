import Foundation
import Processes
import RTCNet
import RTCWire
import SRTC
import SRTCProtocol
import SRTCTestSupport
import Synchronization
import Testing
import TestWait

/// The speed test against the real server's media port, through a relay shaped like an access
/// link: a rate-limited bottleneck and seeded random loss on each direction.
@Suite(.serialized) struct SpeedTestTests {
    static func engine() -> SRTCEngine {
        SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "speedtest-events"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
    }

    /// A speed-test token from the signed route.
    static func grant(_ server: TestServer, uid: String) async throws -> String {
        let (status, body) = try await server.call("/server/v1/speedtest/grant", ["uid": uid])
        #expect(status == 200)
        return try #require(body["token"] as? String)
    }

    @Test func measuresTheBottleneckRateAndTheLossOfEachDirection() async throws {
        let server = try TestServer()
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort)))
        let limit = 4_000_000
        relay.shape(uplink: .init(bitrate: limit, lossRate: 0.05), downlink: .init(bitrate: limit, lossRate: 0.03), seed: 0x51EED)
        let engine = Self.engine()
        let recorder = SpeedTestRecorder()
        engine.delegates.add(delegate: recorder)
        let params = SpeedTestParams(linkId: "wifi", serverAddress: "127.0.0.1", serverPort: relay.address.port,
                                     token: try await Self.grant(server, uid: "alice"), duration: 4,
                                     expectedUplinkBitrate: limit * 3 / 2, expectedDownlinkBitrate: limit * 3 / 2)
        try engine.startSpeedTest(params)
        try await recorder.finished()
        let result = try #require(recorder.result, "failed: \(String(describing: recorder.error))")
        #expect(result.linkId == "wifi")
        #expect(abs(Double(result.uplink.bandwidth) / Double(limit) - 1) < 0.2, "uplink \(result.uplink.bandwidth)")
        #expect(abs(Double(result.downlink.bandwidth) / Double(limit) - 1) < 0.2, "downlink \(result.downlink.bandwidth)")
        #expect(abs(result.uplink.packetLossRate - 0.05) < 0.02, "uplink loss \(result.uplink.packetLossRate)")
        #expect(abs(result.downlink.packetLossRate - 0.03) < 0.02, "downlink loss \(result.downlink.packetLossRate)")
        #expect(result.rttMs > 0 && result.rttMs < 50)
        // 3–5 % loss and two thirds of the expected bandwidth are `poor` in the documented table.
        #expect(result.quality == .poor)
        let phases = recorder.progress.map(\.phase)
        #expect(phases.contains(.latency) && phases.contains(.uplink) && phases.contains(.downlink))
        #expect(recorder.progress.map(\.fraction) == recorder.progress.map(\.fraction).sorted())
        relay.stop()
        await server.stop()
    }

    @Test func aSecondTestAndATestInAChannelAreRefusedWithConflict() async throws {
        let server = try TestServer()
        let engine = Self.engine()
        let recorder = SpeedTestRecorder()
        engine.delegates.add(delegate: recorder)
        let token = try await Self.grant(server, uid: "alice")
        let params = SpeedTestParams(serverAddress: "127.0.0.1", serverPort: server.app.udpPort, token: token, duration: 2)
        try engine.startSpeedTest(params)
        #expect(throws: SRTCError.conflict("a speed test is already running; stop it first")) { try engine.startSpeedTest(params) }
        engine.stopSpeedTest()

        let channel = try engine.createChannel()
        _ = try await channel.join(url: server.httpBase, token: server.token(uid: "alice", channel: "room1"))
        #expect(throws: SRTCError.self) { try engine.startSpeedTest(params) }
        do { try engine.startSpeedTest(params) } catch let error as SRTCError { #expect(error.code == 1009) }
        await channel.leave()
        // Out of the channel it runs again; a channel token is accepted too.
        let again = SpeedTestParams(serverAddress: "127.0.0.1", serverPort: server.app.udpPort,
                                    token: server.token(uid: "alice", channel: "room1"), duration: 2)
        try engine.startSpeedTest(again)
        try await recorder.finished()
        #expect(recorder.result?.quality == .excellent)
        await server.stop()
    }

    /// `srtc speedtest --json` in its own process, through the relay shaped at a known rate: the
    /// one JSON object it prints carries the bottleneck's rate (within 20 %), the link id and a
    /// grade; a forged token gets no answer, so the command fails with exit status 1.
    @Test func theCLIMeasuresThroughTheRelayAndFailsOnARefusedToken() async throws {
        let server = try TestServer()
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort)))
        let limit = 3_000_000
        relay.shape(uplink: .init(bitrate: limit, lossRate: 0), downlink: .init(bitrate: limit, lossRate: 0), seed: 0xC11)
        func speedtest(token: String) async throws -> (status: Int32, output: String) {
            let process = try ChildProcess(EgressTestServer.buildDirectory + "/srtc", [
                "speedtest", "--host", "127.0.0.1", "--port", String(relay.address.port), "--token", token,
                "--duration", "4", "--uplink-bitrate", String(limit * 3 / 2), "--downlink-bitrate", String(limit * 3 / 2),
                "--link-id", "cli", "--json"], pipeOutput: true)
            defer { process.signal(SIGTERM) }
            // Read once it has exited (its JSON fits the pipe), so a hang fails instead of blocking.
            let status = await process.waitForExit(timeout: 30)
            return (status, status == -1 ? "" : await onThread { String(decoding: process.output!.readDataToEndOfFile(), as: UTF8.self) })
        }

        let measured = try await speedtest(token: try await Self.grant(server, uid: "cli"))
        #expect(measured.status == 0, "\(measured.output)")
        let line = try #require(measured.output.split(separator: "\n").last, "no output")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        #expect(json["link_id"] as? String == "cli")
        for direction in ["uplink", "downlink"] {
            let report = try #require(json[direction] as? [String: Any], "\(line)")
            let bandwidth = try #require(report["bandwidth"] as? Int, "\(line)")
            #expect(abs(Double(bandwidth) / Double(limit) - 1) < 0.2, "\(direction) \(bandwidth)")
            #expect((report["packet_loss_rate"] as? Double ?? 1) < 0.02, "\(line)")
        }
        // Two thirds of the expected bandwidth (under 70 %, at least 50 %): `poor` in the documented table.
        #expect(json["quality"] as? String == "poor", "\(line)")

        let forged = AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: "eve", iat: 0, nbf: 0, exp: Int64.max / 2, jti: "forged",
                                                  speedTest: SpeedTestGrant()), key: "not-the-key")
        let refused = try await speedtest(token: forged)
        #expect(refused.status == 1 && refused.output.isEmpty, "\(refused.status) \(refused.output)")
        relay.stop()
        await server.stop()
    }

    @Test func aProbeWithoutAValidTokenGetsNoAnswer() async throws {
        let server = try TestServer()
        let port = try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort))
        let loop = try UDPReceiveLoop(socket: UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!))
        let received = Mutex<[SpeedTestPacket]>([])
        loop.onDatagram = { bytes, _ in
            if let packet = try? SpeedTestPacket(parsing: UnsafeRawBufferPointer(bytes)) { received.withLock { $0.append(packet) } }
        }
        loop.start(name: "test-prober")
        let badKey = AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: "eve", iat: 0, nbf: 0, exp: Int64.max, jti: "x",
                                                  speedTest: SpeedTestGrant()), key: "not-the-key")
        // Bad token, garbage, a ping for a made-up session, then one valid hello: its welcome must be
        // the only datagram that comes back (the server handles one port's datagrams in order).
        for bytes in [
            SpeedTestPacket(kind: .hello, body: .hello(token: badKey), size: 256).bytes,
            [0x0c, 0x01, 0x07] + [UInt8](repeating: 0xff, count: 40),
            SpeedTestPacket(kind: .ping, session: 42, size: 64).bytes,
            SpeedTestPacket(kind: .hello, body: .hello(token: try await Self.grant(server, uid: "bob")), size: 256).bytes,
        ] { _ = loop.socket.send(bytes, to: port) }
        try await eventually("the welcome") { !received.withLock { $0.isEmpty } }
        #expect(received.withLock { $0.map(\.kind) } == [.welcome])
        loop.stop()
        await server.stop()
    }
}
