import Foundation
import Testing
import RTCNet
import RTCWire
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Synchronization
import TestWait

/// The speed test's WebSocket carrier against a real server.
@Suite struct SpeedTestSocketTests {
    /// A WebSocket that keeps the speed-test datagrams it receives.
    final class Probe: Sendable {
        let socket: WebSocket
        let received = Mutex<[SpeedTestPacket]>([])

        init(_ server: TestServer) async throws {
            socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.app.httpPort)\(SpeedTestSocket.path)", timeout: hangTimeout)
            socket.onMessage { [weak self] message in
                if case .binary(let bytes) = message, let packet = try? SpeedTestPacket(bytes: bytes) { self?.received.withLock { $0.append(packet) } }
            }
        }

        func send(_ packet: SpeedTestPacket) { socket.send(binary: packet.bytes) }

        func wait(count: Int) async throws -> [SpeedTestPacket] {
            try await waitFor("\(count) datagrams (got \(received.withLock { $0.count }))") {
                let now = received.withLock { $0 }
                return now.count >= count ? now : nil
            }
        }
    }

    static func speedTestToken(_ key: String = TestServer.appKey) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: "web", iat: now, nbf: now, exp: now + 60, jti: UUID().uuidString,
                                            speedTest: SpeedTestGrant()), key: key)
    }

    @Test func pingsPullsAndTheReportWorkOverTheSocket() async throws {
        let server = try TestServer()
        let probe = try await Probe(server)
        probe.send(SpeedTestPacket(kind: .hello, body: .hello(token: Self.speedTestToken()), size: 256))
        let welcome = try #require(try await probe.wait(count: 1).first)
        #expect(welcome.kind == .welcome)
        let session = welcome.session
        probe.send(SpeedTestPacket(kind: .ping, session: session, sequence: 1, timestampMicros: 77, size: 64))
        for i in 0..<3 { probe.send(SpeedTestPacket(kind: .data, session: session, sequence: UInt32(i), size: 1000)) }
        probe.send(SpeedTestPacket(kind: .reportRequest, session: session, size: 64))
        probe.send(SpeedTestPacket(kind: .downlinkPull, session: session, sequence: 100, body: .downlinkPull(packetSize: 1200, count: 5)))
        let all = try await probe.wait(count: 8)
        #expect(all.map(\.kind) == [.welcome, .pong, .report] + Array(repeating: .downlinkData, count: 5))
        #expect(all[1].body == .pong(echoedTimestamp: 77, pingsReceived: 1))
        guard case .report(let report) = all[2].body else { Issue.record("no report"); return }
        #expect(report.pingsReceived == 1 && report.dataPackets == 3 && report.dataBytes == 3000)
        #expect(all[3...].map(\.sequence) == [100, 101, 102, 103, 104])
        #expect(all[3...].allSatisfy { $0.size == 1200 })
        probe.socket.close()
        await server.stop()
    }

    @Test func aBadTokenIsRejectedAndTheSocketClosed() async throws {
        let server = try TestServer()
        let probe = try await Probe(server)
        probe.send(SpeedTestPacket(kind: .hello, body: .hello(token: Self.speedTestToken("wrong")), size: 256))
        #expect(try await probe.wait(count: 1).map(\.body) == [.reject(code: 40106)])
        _ = await probe.socket.closed()
        #expect(probe.socket.closeInfo?.code == .policyViolation)
        await server.stop()
    }
}
