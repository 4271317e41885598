import Testing
@testable import SFU

struct KeyFrameRequestThrottleTests {
    @Test func keyFrameRequestsAreSpacedAndRememberedInBetween() {
        var throttle = KeyFrameRequestThrottle(minInterval: 300_000)
        let r6 = throttle.request(now: 0)
        #expect(r6)
        let r7 = throttle.request(now: 100_000)
        #expect(!r7)
        #expect(throttle.pending)
        let r8 = throttle.poll(now: 299_999)
        #expect(!r8)
        let r9 = throttle.poll(now: 300_000)
        #expect(r9)
        #expect(!throttle.pending)
        // A key frame cancels a waiting request.
        let r10 = throttle.request(now: 400_000)
        #expect(!r10)
        throttle.keyFrameReceived()
        let r11 = throttle.poll(now: 700_000)
        #expect(!r11)
    }

    /// A browser drops a request within 300 ms of the one it answered; by default none goes out then,
    /// it waits and goes out at 300 ms (before, the default let it out at 100 ms, to be dropped).
    @Test func byDefaultNoRequestGoesOutWithinWhatABrowserIgnores() {
        var throttle = KeyFrameRequestThrottle()
        let first = throttle.request(now: 0)
        throttle.keyFrameReceived()                          // answered 50 ms later
        let second = throttle.request(now: 150_000)          // a new subscriber: the browser would drop it
        #expect(throttle.pending)
        let tooSoon = throttle.poll(now: 299_999)
        let atInterval = throttle.poll(now: 300_000)
        #expect(first && !second)
        #expect(!tooSoon && atInterval)
    }

    @Test func anAnsweredRequestLetsTheNextOneGoOutSooner() {
        var throttle = KeyFrameRequestThrottle(minInterval: 300_000, answeredInterval: 100_000)
        let first = throttle.request(now: 0)
        throttle.keyFrameReceived()                          // the publisher answered at once
        let early = throttle.request(now: 50_000)            // inside the short interval: remembered
        let pending = throttle.pending
        let atShortInterval = throttle.poll(now: 100_000)    // goes out at 100 ms, not 300 ms
        let unanswered = throttle.request(now: 200_000)      // unanswered now: the full interval applies
        let tooSoon = throttle.poll(now: 399_999)
        let atFullInterval = throttle.poll(now: 400_000)
        #expect(first && !early && pending && atShortInterval)
        #expect(!unanswered && !tooSoon && atFullInterval)
    }
}
