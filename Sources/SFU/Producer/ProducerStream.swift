import RTCWire

/// One RTP stream a producer receives: the whole track, or one simulcast layer.
///
/// It keeps what the SFU needs per incoming stream: RFC 3550 reception statistics for receiver
/// reports and quality, the NACK generator, the packet cache that answers subscribers' NACKs, the
/// key-frame request throttle, the measured bitrate (for layer selection) and the publisher's
/// last sender report (for RTT, and to map timestamps across simulcast switches). I/O thread only.
final class ProducerStream {
    /// Unchecked (read for every packet): the producer owns its streams and its transport drops
    /// them from its SSRC map when the producer closes (see `Consumer`'s back references).
    unowned(unsafe) let producer: Producer
    /// Spatial index: 0 is the lowest layer.
    let index: Int
    let rid: String?
    /// Layer description (`camera_big`), or nil for a plain track.
    let layer: String?
    /// Learned from the first packet (or signaled).
    var ssrc: UInt32?

    var statistics: RTPReceiveStatistics
    var nack: NackGenerator?
    let cache: RTPPacketCache?
    var keyFrameRequests = KeyFrameRequestThrottle()
    /// The AV1 Dependency Descriptors of this stream, with the structure later packets refer to
    /// (nil when the publisher did not negotiate the extension).
    var dependencyDescriptors: DependencyDescriptorReader?
    /// Whether `dependencyDescriptors` is there (checked per packet without touching the reader).
    let readsDependencyDescriptors: Bool

    /// Last packet arrival, µs (`Int64.min` before any).
    private(set) var lastPacketTime: Int64 = .min
    /// First packet arrival, µs (`Int64.min` before any).
    private(set) var firstPacketTime: Int64 = .min
    private(set) var keyFramesReceived = 0
    private(set) var lastKeyFrameTime: Int64 = .min
    /// Measured bitrate, bits per second, updated by `updateBitrate(now:)` (peaks trimmed).
    private(set) var bitrate = 0
    /// `bitrate` as of the last interval the stream sent in, measured over two intervals at least
    /// (past the key frame it starts with) and before the publisher was told to stop it: kept
    /// while it sends nothing, so a layer that dynacast paused at the publisher still has a cost
    /// (`Producer.allocationRate`). 0 until such a measurement.
    private(set) var lastSendingBitrate = 0
    /// Dynacast (`Producer+Dynacast`): whether the publisher was last told nobody needs this layer,
    /// and when it was last told the layer is needed again after that (µs; `Int64.min`: never).
    var toldUnneeded = false
    var neededAgainTime: Int64 = .min
    private var meterBytes: UInt64 = 0
    private var meterTime: Int64 = .min
    /// The last `meterWindows` interval rates, a ring (`meterNext` is the slot written next).
    private var meterRates = [Int](repeating: 0, count: ProducerStream.meterWindows)
    private var meterNext = 0
    private var meterCount = 0

    /// Counters at the start of the current quality interval.
    var qualityPrior: (expected: UInt64, received: UInt64, bytes: UInt64) = (0, 0, 0)

    /// The publisher's last SR (RFC 3550 §6.4.1): NTP time, RTP time and when it arrived.
    private(set) var senderReport: (ntp: UInt64, rtp: UInt32, arrival: Int64)?

    init(producer: Producer, index: Int, encoding: RTPEncodingParameters, clockRate: UInt32,
         nack: Bool, cacheCapacity: Int, readsDependencyDescriptors: Bool = false) {
        self.producer = producer
        self.index = index
        rid = encoding.rid
        layer = encoding.layer
        ssrc = encoding.ssrc
        statistics = RTPReceiveStatistics(clockRate: clockRate)
        self.nack = nack ? NackGenerator() : nil
        cache = cacheCapacity > 0 ? RTPPacketCache(capacity: cacheCapacity) : nil
        self.readsDependencyDescriptors = readsDependencyDescriptors
        dependencyDescriptors = readsDependencyDescriptors ? DependencyDescriptorReader() : nil
    }

    /// The name events use for this stream: its description, else its rid, else its index.
    var layerName: String { layer ?? rid ?? String(index) }

    /// Whether packets arrived within the last `window` µs.
    func isActive(now: Int64, window: Int64 = 1_500_000) -> Bool {
        lastPacketTime != .min && now - lastPacketTime <= window
    }

    // MARK: - Packet path

    /// Counts, caches and checks one packet for gaps.
    /// - Returns: true when the gap detector asks for a key frame.
    @inline(__always)
    func received(_ view: RTPPacketView, now: Int64, isKeyFrame: Bool) -> Bool {
        let seq = view.sequenceNumber
        statistics.update(sequenceNumber: seq, timestamp: view.timestamp, arrivalMicros: now, size: view.bytes.count)
        if lastPacketTime == .min { firstPacketTime = now }
        lastPacketTime = now
        cache?.store(view.bytes, sequenceNumber: seq, now: now)
        var wantsKeyFrame = false
        if nack != nil { wantsKeyFrame = nack!.received(seq, now: now) }
        if isKeyFrame {
            keyFramesReceived += 1
            lastKeyFrameTime = now
            keyFrameRequests.keyFrameReceived()
            nack?.keyFrameReceived(at: seq)
            wantsKeyFrame = false
        }
        return wantsKeyFrame
    }

    /// Records an SR from the publisher for this stream.
    func receivedSenderReport(ntp: UInt64, rtp: UInt32, now: Int64) {
        senderReport = (ntp, rtp, now)
        statistics.senderReportArrived(ntp: NTPTime(rawValue: ntp), arrivalMicros: now)
    }

    /// The SSRC changed (the publisher restarted the stream): start the statistics over.
    func restart(ssrc: UInt32) {
        self.ssrc = ssrc
        statistics = RTPReceiveStatistics(clockRate: statistics.clockRate)
        nack?.reset()
        cache?.clear()
        senderReport = nil
    }

    // MARK: - Periodic

    /// Updates `bitrate` from the bytes received since the last call: the mean of the last
    /// `meterWindows` intervals without the largest one, so one key frame (a subscriber's join
    /// asks for one) does not make the layer look dearer than it is for the next seconds.
    func updateBitrate(now: Int64) {
        let bytes = statistics.bytesReceived
        defer { meterBytes = bytes; meterTime = now }
        guard meterTime != .min, now > meterTime else { return }
        guard isActive(now: now) else {
            bitrate = 0
            meterCount = 0
            return
        }
        // A restart (new SSRC) resets the byte count: no measurement for that interval.
        guard bytes >= meterBytes else { return }
        let instant = Int(min(1e10, Double(bytes - meterBytes) * 8 * 1_000_000 / Double(now - meterTime)))
        meterRates[meterNext] = instant
        meterNext = (meterNext + 1) % Self.meterWindows
        meterCount = min(Self.meterWindows, meterCount + 1)
        bitrate = Self.trimmedMean(meterRates, count: meterCount, newest: meterNext)
        if instant > 0, hasSteadyMeasurement, !toldUnneeded { lastSendingBitrate = bitrate }
    }

    /// Whether `bitrate` spans two intervals or more since the stream (re)started: the trimmed
    /// mean then leaves out the interval of its first key frame.
    var hasSteadyMeasurement: Bool { meterCount >= 2 }

    /// Intervals `bitrate` is measured over (of `MediaTransport.allocationInterval` each).
    static let meterWindows = 6

    /// The mean of the `count` newest rates without their largest (with one, that one).
    static func trimmedMean(_ rates: [Int], count: Int, newest next: Int) -> Int {
        guard count > 1 else { return count == 1 ? rates[(next + rates.count - 1) % rates.count] : 0 }
        var sum = 0, largest = 0
        for k in 1 ... count {
            let rate = rates[(next + rates.count - k) % rates.count]
            sum += rate
            largest = max(largest, rate)
        }
        return (sum - largest) / (count - 1)
    }
}
