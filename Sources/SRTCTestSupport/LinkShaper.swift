import TestRandom

/// One direction of a shaped test path: random loss (seeded, so a run replays) and loss in bursts
/// (`burstLength` datagrams in a row in every `burstPeriod`, a radio fade), then a bottleneck of
/// `bitrate` bits per second with a tail-drop queue of `queueMilliseconds`, as a real access link
/// behaves, then a fixed delay of `delayMilliseconds` (the path's length) and a random one of up
/// to `jitterMilliseconds` (which reorders datagrams, as a real path sometimes does). Counts what
/// it drops for each cause. Not thread-safe: the relay's I/O thread owns it.
public struct LinkShaper: Sendable {
    /// How a direction behaves.
    public struct Shape: Sendable, Equatable {
        /// Bits per second of UDP payload; nil: unlimited.
        public var bitrate: Int?
        /// Probability each datagram is lost before the bottleneck, 0…1.
        public var lossRate: Double
        /// Queue in front of the bottleneck, in milliseconds of transmission at `bitrate`.
        public var queueMilliseconds: Double
        /// Each datagram leaving the bottleneck is held a further uniformly random 0…jitter ms.
        public var jitterMilliseconds: Double
        /// Each datagram leaving the bottleneck is held this long first (a path's propagation delay).
        public var delayMilliseconds: Double
        /// Datagrams lost in a row at the start of every `burstPeriod` offered (0: no bursts):
        /// `burstLength: 10, burstPeriod: 100` loses 10 % in runs of 10, deterministically.
        public var burstLength: Int
        public var burstPeriod: Int
        /// Everything offered is lost for `fadeMilliseconds` at the start of every
        /// `fadePeriodMilliseconds` counted from the shaper's `epoch` (0: no fades): a fade in time,
        /// as a radio's. Unlike `burstLength`, which counts datagrams, it loses the same moments
        /// of every flow shaped from one epoch, so two clients that receive the same audio at
        /// different video rates lose the same audio packets (`interop/test_browser_lab_loss.py`).
        public var fadeMilliseconds: Double
        public var fadePeriodMilliseconds: Double

        public init(bitrate: Int? = nil, lossRate: Double = 0, queueMilliseconds: Double = 50, jitterMilliseconds: Double = 0,
                    delayMilliseconds: Double = 0, burstLength: Int = 0, burstPeriod: Int = 100,
                    fadeMilliseconds: Double = 0, fadePeriodMilliseconds: Double = 1000) {
            self.bitrate = bitrate
            self.lossRate = lossRate
            self.queueMilliseconds = queueMilliseconds
            self.jitterMilliseconds = jitterMilliseconds
            self.delayMilliseconds = delayMilliseconds
            self.burstLength = burstLength
            self.burstPeriod = max(1, burstPeriod)
            self.fadeMilliseconds = fadeMilliseconds
            self.fadePeriodMilliseconds = max(1, fadePeriodMilliseconds)
        }
    }

    public let shape: Shape
    /// Where the fades' periods start (µs on the `offer` clock).
    public let epoch: UInt64
    private var random: SeededRandom
    /// Datagrams waiting, by departure time (µs), earliest first.
    private var queue: [(bytes: [UInt8], departure: UInt64)] = []
    private var head = 0
    /// When the bottleneck finishes sending what it holds (µs).
    private var busyUntil: UInt64 = 0
    public private(set) var offered = 0
    public private(set) var randomlyLost = 0
    public private(set) var burstLost = 0
    public private(set) var queueDropped = 0

    public init(_ shape: Shape, seed: UInt64, epoch: UInt64 = 0) {
        self.shape = shape
        self.epoch = epoch
        random = SeededRandom(seed: seed)
    }

    /// Takes a datagram at `now`; returns it at once when there is neither bottleneck nor jitter,
    /// else queues it (or drops it).
    public mutating func offer(_ bytes: UnsafeRawBufferPointer, now: UInt64) -> [UInt8]? {
        offered += 1
        if shape.burstLength > 0, (offered - 1) % shape.burstPeriod < shape.burstLength {
            burstLost += 1
            return nil
        }
        if shape.fadeMilliseconds > 0, now >= epoch,
           Double((now - epoch) % UInt64(shape.fadePeriodMilliseconds * 1000)) < shape.fadeMilliseconds * 1000 {
            burstLost += 1
            return nil
        }
        if shape.lossRate > 0, Double(random.next() >> 11) / Double(1 << 53) < shape.lossRate {
            randomlyLost += 1
            return nil
        }
        var departure = now
        if let bitrate = shape.bitrate {
            let start = max(now, busyUntil)
            guard Double(start - now) <= shape.queueMilliseconds * 1000 else {
                queueDropped += 1
                return nil
            }
            busyUntil = start + UInt64(Double(bytes.count * 8) * 1e6 / Double(bitrate))
            departure = busyUntil
        } else if shape.jitterMilliseconds <= 0, shape.delayMilliseconds <= 0 {
            return Array(bytes)
        }
        departure += UInt64(shape.delayMilliseconds * 1000)
        if shape.jitterMilliseconds > 0 {
            departure += random.next() % (UInt64(shape.jitterMilliseconds * 1000) + 1)
        }
        insert((Array(bytes), departure))
        return nil
    }

    /// Keeps the queue in departure order (jitter can put a datagram before earlier ones; equal
    /// times keep arrival order).
    private mutating func insert(_ entry: (bytes: [UInt8], departure: UInt64)) {
        var index = queue.count
        while index > head, queue[index - 1].departure > entry.departure { index -= 1 }
        queue.insert(entry, at: index)
    }

    /// The queued datagrams whose transmission has finished by `now`, in order.
    public mutating func due(now: UInt64) -> ArraySlice<(bytes: [UInt8], departure: UInt64)> {
        let start = head
        while head < queue.count, queue[head].departure <= now { head += 1 }
        let out = queue[start..<head]
        if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
            return ArraySlice(out)
        }
        return out
    }
}
