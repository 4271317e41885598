/// Spaces key-frame requests (PLI / FIR) toward one publisher stream: at most one per
/// `minInterval` (300 ms by default), since a key frame is large and each request costs the
/// publisher bandwidth. A request inside the interval is remembered and sent when the interval
/// ends, unless a key frame arrived meanwhile.
struct KeyFrameRequestThrottle: Sendable {
    let minInterval: Int64
    private var lastSent: Int64?
    /// A request is waiting for the interval to end.
    private(set) var pending = false

    init(minInterval: Int64 = 300_000) { self.minInterval = minInterval }

    /// Asks for a key frame. Returns true when the request should go out now.
    mutating func request(now: Int64) -> Bool {
        if let lastSent, now - lastSent < minInterval {
            pending = true
            return false
        }
        lastSent = now
        pending = false
        return true
    }

    /// The request could not be sent (the stream's SSRC is not known yet): retry on the next poll.
    mutating func postpone() {
        lastSent = nil
        pending = true
    }

    /// A key frame arrived: a waiting request is no longer needed.
    mutating func keyFrameReceived() { pending = false }

    /// Returns true when a waiting request may go out now.
    mutating func poll(now: Int64) -> Bool {
        guard pending else { return false }
        return request(now: now)
    }
}
