import Testing
import SRTCTestSupport

/// The short soak of `make test` (the 30-minute one is `make soak`): a real `srtc-server` process,
/// six participants through lossy, jittery relays, with leaves, rejoins, resumes, ICE restarts and
/// layer switches at random for 30 s.
@Suite(.serialized) struct SoakTests {
    @Test func thirtySecondsOfChurnThroughALossyNetwork() async throws {
        var configuration = SoakRunner.Configuration()
        configuration.participants = 6
        configuration.duration = .seconds(30)
        configuration.warmUp = .seconds(10)
        configuration.reportInterval = .seconds(10)
        configuration.eventInterval = .seconds(2)
        let result = try await SoakRunner(configuration: configuration).run()
        #expect(result.passed, "\(result.failures)")
        let total = result.samples.reduce(SoakTotals()) { $0 + $1.delivery }
        // Media really flowed, was really decoded, and the random events really happened.
        #expect(total.videoExpected > 1000 && total.audioExpected > 1000)
        #expect(total.decoded > 100)
        #expect(total.decodeBreaks * 50 < total.decoded)
        #expect((result.samples.last?.events.values.reduce(0, +) ?? 0) >= 5)
    }
}
