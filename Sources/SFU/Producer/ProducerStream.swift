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

    /// Last packet arrival, µs (`Int64.min` before any).
    private(set) var lastPacketTime: Int64 = .min
    /// First packet arrival, µs (`Int64.min` before any).
    private(set) var firstPacketTime: Int64 = .min
    private(set) var keyFramesReceived = 0
    private(set) var lastKeyFrameTime: Int64 = .min
    /// Measured bitrate, bits per second, updated by `updateBitrate(now:)`.
    private(set) var bitrate = 0
    private var meterBytes: UInt64 = 0
    private var meterTime: Int64 = .min

    /// Counters at the start of the current quality interval.
    var qualityPrior: (expected: UInt64, received: UInt64, bytes: UInt64) = (0, 0, 0)

    /// The publisher's last SR (RFC 3550 §6.4.1): NTP time, RTP time and when it arrived.
    private(set) var senderReport: (ntp: UInt64, rtp: UInt32, arrival: Int64)?

    init(producer: Producer, index: Int, encoding: RTPEncodingParameters, clockRate: UInt32,
         nack: Bool, cacheCapacity: Int) {
        self.producer = producer
        self.index = index
        rid = encoding.rid
        layer = encoding.layer
        ssrc = encoding.ssrc
        statistics = RTPReceiveStatistics(clockRate: clockRate)
        self.nack = nack ? NackGenerator() : nil
        cache = cacheCapacity > 0 ? RTPPacketCache(capacity: cacheCapacity) : nil
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

    /// Updates `bitrate` from the bytes received since the last call (smoothed).
    func updateBitrate(now: Int64) {
        let bytes = statistics.bytesReceived
        defer { meterBytes = bytes; meterTime = now }
        guard meterTime != .min, now > meterTime else { return }
        // A restart (new SSRC) resets the byte count: no measurement for that interval.
        let delta = bytes >= meterBytes ? bytes - meterBytes : 0
        let instant = min(1e10, Double(delta) * 8 * 1_000_000 / Double(now - meterTime))
        bitrate = isActive(now: now) ? Int(bitrate == 0 ? instant : 0.5 * Double(bitrate) + 0.5 * instant) : 0
    }
}
