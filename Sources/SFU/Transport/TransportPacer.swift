/// What one subscriber transport may send now, and the video it holds back until then: a token
/// bucket filled at `rate` (the transport's bandwidth estimate, `MediaTransport+Pacing.swift`)
/// and a ring of packets waiting for it.
///
/// Audio and RTCP never wait: they leave at once and their bytes are taken from the bucket
/// (which may go into debt), so the video behind them waits instead. Video, retransmissions and
/// probe padding leave at once only while nothing waits and the bucket has bytes; otherwise they
/// queue here, in order, and the worker's 10 ms tick sends what the bucket allows. The queue so
/// sits in the server, where audio passes it, instead of in the bottleneck's FIFO, whose tail
/// drop takes audio with the video.
///
/// A pure model: the ring holds `Entry` records (slot indices into the worker's
/// `PacedPacketPool`), the bucket counts bytes and microseconds. Allocated once, with its
/// transport.
struct TransportPacer {
    /// One packet waiting: its slot, its length, and where its transport-wide sequence number
    /// and abs-send-time are (offsets into the packet, -1: none), written when it leaves.
    struct Entry: Sendable, Equatable {
        var slot: Int32 = -1
        var length: Int32 = 0
        /// Arrival of the packet it forwards (the port's latency stamp).
        var stamp: Int64 = 0
        var transportSequenceOffset: Int16 = -1
        var absSendTimeOffset: Int16 = -1
        /// When it was queued, µs.
        var queuedAt: Int64 = 0
    }

    /// Packets the ring holds (a 640×360 key frame is 20–40).
    static let capacity = 128
    /// The queue never holds more than this long at `rate`: a larger backlog raises the drain
    /// rate to clear it in this time (an estimate too low must not hold media back for seconds).
    static let maxQueueTime: Int64 = 500_000
    /// The bucket holds at most this long of sending at `rate` (the largest burst after a pause).
    static let maxBurstTime: Int64 = 20_000
    /// The debt unqueued packets (audio, RTCP) may run up, in time at `rate`.
    static let maxDebtTime: Int64 = 250_000

    /// Bits per second; 0: no estimate yet, nothing is held back.
    var rate = 0
    /// The link shows a queue of its own (transport-cc's queueing delay has lasted): a backlog
    /// beyond `maxQueueTime` is dropped, oldest first (`overflow`), instead of sent faster than
    /// the link carries, where its tail drop would take the audio too.
    var congested = false
    /// Bytes that may leave now (negative: debt).
    private(set) var budget = 0.0
    private var lastRefill: Int64 = .min
    private var entries: [Entry]
    private var head = 0
    private(set) var count = 0
    private(set) var queuedBytes = 0

    init() {
        entries = Array(repeating: Entry(), count: Self.capacity)
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == Self.capacity }

    /// Whether a packet that may wait must wait now (something waits already, or the bucket is empty).
    @inline(__always)
    var mustQueue: Bool { rate > 0 && (count > 0 || budget <= 0) }

    /// Whether the head of the queue may leave now.
    @inline(__always)
    var mayRelease: Bool { count > 0 && (rate == 0 || budget > 0) }

    /// Fills the bucket for the time since the last call: at `rate`, or faster when the backlog
    /// would otherwise wait longer than `maxQueueTime`.
    @inline(__always)
    mutating func refill(now: Int64) {
        let elapsed = lastRefill == .min ? 0 : max(0, now - lastRefill)
        lastRefill = now
        guard rate > 0 else { return }
        let drain = congested ? 0 : Int64(queuedBytes) * 8_000_000 / Self.maxQueueTime
        let effective = Double(max(Int64(rate), drain))
        budget = min(budget + effective * Double(elapsed) / 8_000_000, effective * Double(Self.maxBurstTime) / 8_000_000)
    }

    /// Whether the backlog is over what `rate` sends in `maxQueueTime` while congested: the head
    /// is to be dropped.
    var overflow: Bool {
        congested && rate > 0 && count > 0 && Int64(queuedBytes) * 8_000_000 > Int64(rate) * Self.maxQueueTime
    }

    /// Takes `bytes` that left from the bucket.
    @inline(__always)
    mutating func spend(_ bytes: Int) {
        guard rate > 0 else { return }
        budget = max(budget - Double(bytes), -Double(rate) * Double(Self.maxDebtTime) / 8_000_000)
    }

    /// Queues `entry` at the tail (the caller checked `isFull`).
    @inline(__always)
    mutating func push(_ entry: Entry) {
        entries[(head + count) % Self.capacity] = entry
        count += 1
        queuedBytes += Int(entry.length)
    }

    /// The head of the queue (the caller checked `count > 0`).
    var front: Entry { entries[head] }

    /// Removes the head of the queue.
    @inline(__always)
    @discardableResult
    mutating func popFront() -> Entry {
        let entry = entries[head]
        head = (head + 1) % Self.capacity
        count -= 1
        queuedBytes -= Int(entry.length)
        return entry
    }
}
