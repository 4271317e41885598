/// Spaces key-frame requests (PLI / FIR) toward one publisher stream, since a key frame is large
/// and each request costs the publisher bandwidth: while a request is outstanding (no key frame
/// since), at most one per `minInterval` (300 ms by default); once it was answered, a new
/// request (a new subscriber, a layer switch) may go out after `answeredInterval`. A request inside
/// the interval is remembered and sent when the interval ends, unless a key frame arrived meanwhile.
///
/// Both default to 300 ms because libwebrtc publishers (every browser) ignore a key-frame request
/// that comes within 300 ms of the last one they honoured: a request sent sooner, however fast the
/// last one was answered, is lost, and the subscriber that needed it waits for its consumer's next
/// re-ask (a second). A shorter `answeredInterval` only suits publishers known to honour each one.
struct KeyFrameRequestThrottle: Sendable {
    let minInterval: Int64
    let answeredInterval: Int64
    private var lastSent: Int64?
    /// A key frame arrived since the last request went out.
    private var answered = false
    /// A request is waiting for the interval to end.
    private(set) var pending = false

    init(minInterval: Int64 = 300_000, answeredInterval: Int64 = 300_000) {
        self.minInterval = minInterval
        self.answeredInterval = min(answeredInterval, minInterval)
    }

    /// Asks for a key frame. Returns true when the request should go out now.
    mutating func request(now: Int64) -> Bool {
        if let lastSent, now - lastSent < (answered ? answeredInterval : minInterval) {
            pending = true
            return false
        }
        lastSent = now
        pending = false
        answered = false
        return true
    }

    /// The request could not be sent (the stream's SSRC is not known yet): retry on the next poll.
    mutating func postpone() {
        lastSent = nil
        pending = true
    }

    /// A key frame arrived: a waiting request is no longer needed, and the last one was answered.
    mutating func keyFrameReceived() {
        pending = false
        answered = true
    }

    /// Returns true when a waiting request may go out now.
    mutating func poll(now: Int64) -> Bool {
        guard pending else { return false }
        return request(now: now)
    }
}
