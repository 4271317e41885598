import SRTCTestSupport
import Testing
@testable import SRTCLoad

/// The small load test of `make test`: one publisher to four subscribers on the real server
/// in-process, three seconds. Delivery is asserted; delays are measured but never judged here
/// (speed lives in `make bench-sfu`).
struct LoadTestAgainstServerTests {
    @Test func onePublisherToFourSubscribersDeliversWhatWasSent() async throws {
        let server = try TestServer()
        let target = SRTCLoadTarget(baseURL: server.httpBase, appId: TestServer.appId, appKey: TestServer.appKey)
        let run = try LoadRun(scenario: LoadScenario(publishers: 1, subscribers: 4, duration: 3), target: target)
        try await run.setUp()
        let report = await run.measure(seconds: 3)
        await run.tearDown()
        await server.stop()

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.subscribers == 4)
        #expect(report.streams == 8)                       // audio and video to each subscriber
        #expect(report.packetsSent > 300)                  // ~66 video + 50 audio packets a second
        // Every subscriber got at least 95 % of what the publisher sent on its streams.
        #expect(report.packetsExpected >= 4 * report.packetsSent * 9 / 10)
        #expect(report.worstSubscriberDelivery >= 0.95, "delivery \(report.worstSubscriberDelivery)")
        #expect(report.delivery >= 0.95)
        // Every packet carried its send time (abs-capture-time through our server): delays measured.
        #expect(report.latency.samples == report.packetsReceived)
        #expect(report.latency.p50 > 0)
        #expect(report.firstPacket.samples == 8)
    }
}
