import RTCNet

/// The media plane's counters and distributions, as `/metrics` shows them. A worker publishes a
/// copy once a second (`SFUWorker.metrics`); counters only grow, gauges are the current values.
/// Label sets stay bounded: nothing here is per participant.
public struct SFUMetrics: Sendable, Equatable {
    /// Plain Opus packets the SFU sent wrapped in RED toward lossy subscribers
    /// (`Consumer.addsRED`), by whether the previous packet went along as the redundant block,
    /// and the times adding RED was turned on and off (docs/network.md, "RED added by the SFU").
    public struct REDAdded: Sendable, Equatable {
        /// With the previous packet as the redundant block.
        public var withBlock = 0
        /// Without: the packet sent just before to this subscriber was not the source's previous
        /// number (a loss upstream, the first after a pause or a restarted source).
        public var notPrevious = 0
        /// Without: the previous packet was no longer in the producer's cache.
        public var notCached = 0
        /// Without: the previous packet did not fit a block (timestamp offset not in 1…16383,
        /// empty, more than 1023 bytes, a RED primary that did not parse).
        public var unfit = 0
        public var turnedOn = 0
        public var turnedOff = 0

        public init() {}

        mutating func add(_ other: REDAdded) {
            withBlock += other.withBlock; notPrevious += other.notPrevious; notCached += other.notCached; unfit += other.unfit
            turnedOn += other.turnedOn; turnedOff += other.turnedOff
        }
    }

    /// Packet counters, summed over every transport that ever existed.
    public struct Counters: Sendable, Equatable {
        public var rtpPacketsIn = 0
        public var rtpBytesIn = 0
        public var rtcpPacketsIn = 0
        public var rtpPacketsOut = 0
        public var rtpBytesOut = 0
        public var rtcpPacketsOut = 0
        /// NACK packets from subscribers, and retransmissions answering them.
        public var nacksReceived = 0
        public var retransmissions = 0
        /// NACK packets the SFU sent to publishers.
        public var nacksSent = 0
        /// Key-frame requests from subscribers and to publishers (RFC 4585 PLI, RFC 5104 FIR).
        public var plisReceived = 0
        public var firsReceived = 0
        public var plisSent = 0
        public var firsSent = 0
        /// RTP from no known producer, and RTP or RTCP that did not parse.
        public var unknownSSRC = 0
        public var malformed = 0
        public var red = REDAdded()

        public init() {}

        mutating func add(_ other: Counters) {
            rtpPacketsIn += other.rtpPacketsIn; rtpBytesIn += other.rtpBytesIn; rtcpPacketsIn += other.rtcpPacketsIn
            rtpPacketsOut += other.rtpPacketsOut; rtpBytesOut += other.rtpBytesOut; rtcpPacketsOut += other.rtcpPacketsOut
            nacksReceived += other.nacksReceived; retransmissions += other.retransmissions; nacksSent += other.nacksSent
            plisReceived += other.plisReceived; firsReceived += other.firsReceived
            plisSent += other.plisSent; firsSent += other.firsSent
            unknownSSRC += other.unknownSSRC; malformed += other.malformed
            red.add(other.red)
        }
    }

    public var counters = Counters()
    /// Live objects: routers (channels with media), transports, distinct participants with a
    /// transport, producers (published tracks) and consumers (subscriptions).
    public var routers = 0
    public var transports = 0
    public var participants = 0
    public var producers = 0
    public var consumers = 0
    /// Subscribers' receiver reports: fraction lost (per mille), jitter (µs), round-trip time (µs).
    public var subscriberLoss = LogHistogram()
    public var subscriberJitter = LogHistogram()
    public var subscriberRTT = LogHistogram()
    /// Each subscribe transport's bandwidth estimate, once a second (kbit/s).
    public var bandwidthEstimate = LogHistogram()
    /// From a participant's join to the first packet the SFU forwarded to them (µs).
    public var joinToFirstPacket = LogHistogram()
    /// From a packet's arrival to its copies being handed to the kernel (µs), every copy.
    public var forwardingLatency = LogHistogram()
    /// Each worker's own figures, by worker index (one entry per worker merged in).
    public var workers: [Worker] = []

    /// What one worker (one I/O thread) did: the per-worker series of `/metrics`.
    public struct Worker: Sendable, Equatable {
        /// RTP packets sent to subscribers (its transports' `rtpPacketsOut`), since start.
        public var forwardedPackets = 0
        /// `forwardedPackets` per second over the last publishing interval: the load placement
        /// compares.
        public var forwardedPerSecond = 0.0
        /// CPU time of the worker's thread since it started, seconds (`CLOCK_THREAD_CPUTIME_ID`
        /// read on the thread itself).
        public var cpuSeconds = 0.0
        /// Share of the last second the thread spent on the CPU.
        public var busyRatio = 0.0
        /// Live transports and routers.
        public var transports = 0
        public var routers = 0
        /// Datagrams the send queue or the kernel refused.
        public var sendQueueDrops = 0
        /// Datagrams on the worker's port that no transport of it claimed (a datagram for
        /// another worker's transport among them).
        public var unroutedDatagrams = 0
        /// Packets resent in answer to NACKs, since start.
        public var retransmissions = 0
        /// Live ends of pipes to other workers (`WorkerPipe`): channels this worker relays to
        /// another, and channels of another it serves sessions of.
        public var pipes = 0
        /// Packets its pipes' sends dropped because the other worker fell behind (ring full).
        public var pipeDrops = 0

        public init() {}
    }

    /// Share of the last second each worker's I/O thread spent on the CPU, by worker index.
    public var busyRatios: [Double] { workers.map(\.busyRatio) }

    public init() {}

    /// Adds another worker's figures (one server, several workers).
    public mutating func merge(_ other: SFUMetrics) {
        counters.add(other.counters)
        routers += other.routers; transports += other.transports; participants += other.participants
        producers += other.producers; consumers += other.consumers
        subscriberLoss.merge(other.subscriberLoss); subscriberJitter.merge(other.subscriberJitter)
        subscriberRTT.merge(other.subscriberRTT); bandwidthEstimate.merge(other.bandwidthEstimate)
        joinToFirstPacket.merge(other.joinToFirstPacket); forwardingLatency.merge(other.forwardingLatency)
        workers += other.workers
    }
}

/// A summary of forwarding latency.
public struct ForwardingLatency: Hashable, Sendable {
    /// Packets measured.
    public var samples: UInt64
    public var p50Micros: Int
    public var p99Micros: Int
}
