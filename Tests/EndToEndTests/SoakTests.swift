import Testing
import SRTCTestSupport

/// The short soak of `make test` (the 30-minute one is `make soak`): a real `srtc-server` process,
/// six participants through lossy, jittery relays, with leaves, rejoins, resumes, ICE restarts and
/// layer switches at random for 2 minutes (issue #15: "a 2-minute version runs in `make test`").
@Suite(.serialized) struct SoakTests {
    @Test func twoMinutesOfChurnThroughALossyNetwork() async throws {
        var configuration = SoakRunner.Configuration()
        configuration.participants = 6
        configuration.duration = .seconds(120)
        configuration.warmUp = .seconds(30)
        configuration.reportInterval = .seconds(20)
        configuration.eventInterval = .seconds(2)
        let result = try await SoakRunner(configuration: configuration).run()
        #expect(result.passed, "\(result.failures)")
        let total = result.samples.reduce(SoakTotals()) { $0 + $1.delivery }
        // Media really flowed, was really decoded, and the random events really happened.
        #expect(total.videoExpected > 1000 && total.audioExpected > 1000)
        #expect(total.decoded > 100)
        #expect(total.decodeBreaks * 50 < total.decoded)
        #expect((result.samples.last?.events.values.reduce(0, +) ?? 0) >= 10)
        #expect(result.samples.allSatisfy { $0.participants >= 5 })
    }
}
