// Speed-test accuracy: the SDK's speed test against the real server through the test relay
// shaped at a known rate and loss, measured against what was configured. Printed, never asserted.
import Foundation
import RTCNet
import SRTC
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Synchronization

/// Runs the speed-test benchmark and prints its figures.
func runSpeedTestBenchmarks() {
    print("== speedtest (SDK through a shaped relay to the server's media port; 4 s tests, load at 1.5x the limit)")
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await SpeedTestBench().run() } catch { print("speedtest benchmark failed: \(error)") }
        done.signal()
    }
    done.wait()
}

private struct SpeedTestBench {
    final class Result: SRTCEngineDelegate, @unchecked Sendable {
        let value = Mutex<Swift.Result<SpeedTestResult, SRTCError>?>(nil)
        func engine(_ engine: SRTCEngine, speedTestDidFinish result: SpeedTestResult) { value.withLock { $0 = .success(result) } }
        func engine(_ engine: SRTCEngine, speedTestDidFail error: SRTCError, linkId: String) { value.withLock { $0 = .failure(error) } }
    }

    func run() async throws {
        let server = try TestServer { $0.logLevel = "error"; $0.speedTest.maxBitrate = 100_000_000 }
        let cases: [(bitrate: Int, loss: Double)] = [(2_000_000, 0), (5_000_000, 0.02), (20_000_000, 0.05)]
        print("  limit      loss  | uplink measured  ratio | downlink measured  ratio | loss up / down   | rtt")
        for (bitrate, loss) in cases {
            let relay = try LossyRelay(server: SocketAddress(ip: "127.0.0.1", port: server.app.udpPort)!)
            relay.shape(uplink: .init(bitrate: bitrate, lossRate: loss), downlink: .init(bitrate: bitrate, lossRate: loss), seed: UInt64(bitrate))
            let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench-speedtest"), logLevel: .off,
                                                         mediaBindAddress: "127.0.0.1"))
            let observer = Result()
            engine.delegates.add(delegate: observer)
            let token = AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: "bench", iat: 0, nbf: 0, exp: Int64.max / 2, jti: UUID().uuidString,
                                                     speedTest: SpeedTestGrant()), key: TestServer.appKey)
            try engine.startSpeedTest(SpeedTestParams(serverAddress: "127.0.0.1", serverPort: relay.address.port, token: token, duration: 4,
                                                      expectedUplinkBitrate: bitrate * 3 / 2, expectedDownlinkBitrate: bitrate * 3 / 2))
            while observer.value.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(50)) }
            switch observer.value.withLock({ $0 })! {
            case .success(let r):
                print(String(format: "  %6.1f Mbps %4.1f%% | %9.3f Mbps  %5.3f | %9.3f Mbps    %5.3f | %5.2f%% / %5.2f%% | %.2f ms",
                             Double(bitrate) / 1e6, loss * 100, Double(r.uplink.bandwidth) / 1e6, Double(r.uplink.bandwidth) / Double(bitrate),
                             Double(r.downlink.bandwidth) / 1e6, Double(r.downlink.bandwidth) / Double(bitrate),
                             r.uplink.packetLossRate * 100, r.downlink.packetLossRate * 100, r.rttMs))
            case .failure(let error):
                print("  \(bitrate) bps: failed: \(error)")
            }
            await engine.destroy()
            relay.stop()
        }
        await server.stop()
    }
}
