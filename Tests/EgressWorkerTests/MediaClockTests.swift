import EgressWorker
import Testing

@Suite struct MediaClockTests {
    @Test func followsTheRTPClockAndNotTheJitterOfArrivals() {
        var clock = MediaClock(clockRate: 90_000)
        #expect(clock.time(rtpTimestamp: 1_000, arrivalUs: 5_000_000) == 5_000_000)
        // 3000 ticks = 33.333 ms later, arriving 10 ms late: the RTP time wins.
        #expect(clock.time(rtpTimestamp: 4_000, arrivalUs: 5_043_333) == 5_033_333)
        #expect(clock.time(rtpTimestamp: 7_000, arrivalUs: 5_060_000) == 5_066_666)
    }

    @Test func wrapsAroundThe32BitTimestamp() {
        var clock = MediaClock(clockRate: 48_000)
        #expect(clock.time(rtpTimestamp: UInt32.max - 479, arrivalUs: 0) == 0)
        // 960 ticks later, across the wrap: 20 ms.
        #expect(clock.time(rtpTimestamp: 480, arrivalUs: 20_000) == 20_000)
    }

    @Test func anOutageOrANewStreamReanchorsOnArrival() {
        var clock = MediaClock(clockRate: 90_000)
        _ = clock.time(rtpTimestamp: 0, arrivalUs: 1_000_000)
        // The publisher came back 3 s later with a new stream whose timestamps start elsewhere.
        #expect(clock.time(rtpTimestamp: 123_456_789, arrivalUs: 4_000_000) == 4_000_000)
        // From there on, its own clock again.
        #expect(clock.time(rtpTimestamp: 123_456_789 + 9_000, arrivalUs: 4_120_000) == 4_100_000)
        // A pause in sending with continuing timestamps (the same stream after 2 s) keeps the RTP time.
        #expect(clock.time(rtpTimestamp: 123_456_789 + 9_000 + 180_000, arrivalUs: 6_110_000) == 6_100_000)
    }
}
