import Foundation

/// Estimates the bitrate a subscriber can receive, from REMB (the receiver's own estimate) and/or
/// from transport-cc feedback on the packets the SFU sent it.
///
/// The transport-cc side is a small loss- and delay-based controller in the spirit of GCC
/// (draft-ietf-rmcat-gcc-02): heavy loss (> 10 % over a window of 500 ms) that comes with queueing
/// delay in the same window (a queue that filled, then overflowed) cuts the estimate in proportion
/// to the loss; heavy loss with a flat delay (a lossy radio link or relay) only holds its growth;
/// lasting queueing delay (one-way delay above its recent minimum for `overuseTime`), or queueing
/// delay that grows fast while the link delivers more slowly than the server sends (`rampDelay`),
/// caps it below the delivered rate; low loss with a steady delay lets it grow multiplicatively,
/// but not above 1.5 times the rate delivered (what was not sent was not tested: the way above is
/// a probe, whose delivered rate `acceptProbe` takes). When both sources exist the lower wins.
/// With no source the estimate is nil (no limit).
struct BandwidthEstimator: Sendable {
    struct Configuration: Sendable {
        var initial: Double = 1_000_000
        var minimum: Double = 100_000
        var maximum: Double = 20_000_000
        /// Growth per second while loss is low and delay steady.
        var increasePerSecond: Double = 1.25
        var highLoss: Double = 0.10
        var lowLoss: Double = 0.02
        /// Queueing delay that counts as congestion, µs.
        var delayThreshold: Int64 = 60_000
        /// How long the one-way delay minimum is remembered, µs.
        var baseDelayWindow: Int64 = 10_000_000
        /// No growth for this long after a decrease, µs.
        var holdAfterDecrease: Int64 = 1_000_000
        /// Loss is judged over windows of at least this long and `lossWindowPackets` packets
        /// (GCC's loss controller judges the loss of RTCP intervals, not of single reports):
        /// feedback comes every 50 ms with a few packets each, so 5 % random loss shows 10–25 %
        /// in one report of four to ten packets now and then, and cutting on those took the
        /// estimate down on a wide link. A window above `highLoss` cuts once, in proportion.
        var lossWindow: Int64 = 500_000
        var lossWindowPackets = 20
        /// A window's loss cuts only if some feedback in it showed this much queueing delay, µs:
        /// loss that comes with a queue is congestion, loss on a flat delay is not (a lower rate
        /// would lose as large a share: NACK, RED and key frames repair it, not a lower layer).
        /// As GCC's loss-based controller lowers only on loss that appears with the sending rate.
        var lossDelay: Int64 = 20_000
        /// The queueing delay loss is judged with (`lossDelay`, and the allocator's
        /// `congestionLossDelay`) is a *rise*: a feedback's mean one-way delay above the least
        /// mean of the feedbacks of the last one to two of these windows, not above `baseDelay`
        /// (the least single packet of 10–20 s), and the lesser of two feedbacks in a row
        /// (`lastLossQueueDelay`), µs. A path that was shorter for a moment (datagrams a relay
        /// held, sent at once when it was reshaped; a route that came back) leaves `baseDelay`
        /// low for up to 20 s, and a flat 20 ms path then read as 20 ms of queue: 10 % loss in
        /// bursts through the lab's relay cut the estimate below the big layer and switched the
        /// subscriber down (NetworkLabRelayTests). A queue that overflows rose within the last
        /// second and stays; one late batch of a stalled receiver does not stay.
        var lossDelayWindow: Int64 = 1_000_000
        /// A window's loss above this cuts even without queueing delay: a policer that drops
        /// without queueing, or a link that loses most of what it gets, where the big layer
        /// cannot be repaired anyway.
        var severeLoss: Double = 0.30
        /// Queueing delay counts only once it has stayed above `delayThreshold` this long, µs:
        /// a receiver whose thread stalled for a moment (a busy machine) reports one late batch,
        /// a bottleneck's queue stays.
        var overuseTime: Int64 = 150_000
        /// Queueing delay that grows fast counts at once, without `overuseTime`: three feedbacks
        /// in a row whose queueing delay rose each time, by `rampRise` in all, to `rampDelay` or
        /// more, the last one's packets arriving spread over at least `rampSpread` times the time
        /// they were sent in (the link delivers more slowly than the server sends: a queue that
        /// fills). A link that narrowed under the big layer shows 28, 81, 123 ms 60 ms apart and
        /// overflows a 200 ms tbf queue before the level rule acts; a receiver whose thread
        /// stalled stamps a late batch *closer* together than it was sent, and is not taken
        /// for a queue.
        var rampDelay: Int64 = 40_000
        var rampRise: Int64 = 40_000
        var rampSpread = 1.25
        /// A REMB-only receiver's probed rate (`acceptREMBProbe`) stands until its REMB falls
        /// (by more than `rembFall`: its delay-based detector saw a queue), its reports show this
        /// much loss or the round trip this far above its least, or its REMB reaches it.
        var probedLoss = 0.05
        var probedRoundTripRise: Int64 = 60_000
        var rembFall = 0.97
        /// How long the least round trip from receiver reports is remembered, µs.
        var baseRoundTripWindow: Int64 = 10_000_000
        /// A REMB below `rembDrop` times the one before it (or the highest of the `rembDropWindow`
        /// before it) is the receiver's delay-based detector seeing a queue build (a GCC receiver
        /// sends a lower REMB at once, aiortc one with every packet while it sees it): congestion
        /// for `rembDropTime` after it (`rembDropping`), where transport-cc is not there to show it.
        var rembDrop = 0.85
        var rembDropWindow: Int64 = 1_000_000
        var rembDropTime: Int64 = 600_000
    }

    /// One packet as transport-cc feedback reported it.
    struct PacketFeedback: Sendable, Equatable {
        var sendTime: Int64
        var size: Int
        /// Receiver clock, µs; nil when lost.
        var arrivalTime: Int64?
    }

    let configuration: Configuration
    private(set) var rembBitrate: Double?
    /// What a probe proved to a receiver that sends REMB and no transport-cc (`acceptREMBProbe`):
    /// the estimate does not go below it while it stands, however slowly the REMB climbs.
    private(set) var probedREMBFloor: Double?
    /// The running probe's evidence toward a REMB-only receiver.
    private(set) var rembProbe: REMBProbeEvidence?
    /// The highest REMB of the last `rembDropWindow` and when it came; when a REMB last fell
    /// below `rembDrop` times it.
    private var rembPeak: (value: Double, at: Int64)?
    private var rembDropAt: Int64?
    /// The least round trip of the receiver's reports over `baseRoundTripWindow` (as `baseDelay`).
    private var roundTripFloor: (least: Int64, windowLeast: Int64?, windowStart: Int64)?
    private(set) var feedbackEstimate: Double?
    private(set) var lastLossRate: Double = 0
    private(set) var lastQueueDelay: Int64 = 0
    /// The queueing delay loss is judged with (`Configuration.lossDelayWindow`): of this feedback
    /// and the one before, the lesser rise of the mean one-way delay over the last 1–2 s, µs.
    private(set) var lastLossQueueDelay: Int64 = 0
    /// This feedback's rise, before `lastLossQueueDelay` takes the lesser with the one before.
    private var lastRise: Int64 = 0
    /// The least mean one-way delay of a feedback in the current and the previous
    /// `lossDelayWindow`, and when the current one started.
    private var recentLevel: (current: Int64?, previous: Int64?, start: Int64?) = (nil, nil, nil)
    /// Since when every feedback showed queueing delay above the threshold.
    private var overuseSince: Int64?
    /// Whether queueing delay has stayed above the threshold for `overuseTime`, or grew fast
    /// (`rampDelay`).
    private(set) var overusing = false
    /// The queueing delay of the two feedbacks before the last one, oldest first.
    private var earlierDelays: (Int64?, Int64?) = (nil, nil)
    private var lastUpdate: Int64?
    private var holdUntil: Int64 = .min
    private var baseDelay: Int64?
    private var windowMinimum: Int64?
    private var windowStart: Int64 = 0
    private var deliveredBytes = 0
    private var deliveredStart: Int64?
    private(set) var deliveredRate: Double?
    /// Delivered rate over the latest window of at least `recentSpan` receiver time (not smoothed).
    private(set) var recentDeliveredRate: Double?
    private var recentWindow = DeliveryWindow(span: 200_000)
    /// What was delivered of the packets sent since the probe started (`startProbe`), measured in
    /// windows of `probeMeasureSpan` receiver time: the bytes and first arrival of the current one.
    private var probeStart: Int64?
    /// The current loss window: when it started (feedback time, µs), packets and losses in it.
    private var lossWindowStart: Int64?
    private var lossWindowCount = 0
    private var lossWindowLost = 0
    /// The largest queueing delay one feedback of the current loss window showed, µs.
    private var lossWindowDelay: Int64 = 0
    /// Whether the last complete window's loss counted as congestion (queueing delay with it,
    /// or `severeLoss`).
    private(set) var windowLossCongested = false
    /// The loss of the last complete window.
    private(set) var windowLossRate: Double = 0
    private var probeWindow = DeliveryWindow(span: BandwidthEstimator.probeMeasureSpan)
    /// Bits per second delivered of the probe's packets in its latest complete window. The
    /// latest, not since the start: a token bucket (a policer, tc's tbf) lets the first burst of
    /// a probe through at any rate, and only later windows show the link's own rate.
    private(set) var probeDelivered: Int?
    /// Receiver time one probe measurement window spans, µs.
    static let probeMeasureSpan: Int64 = 250_000

    init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// The current estimate, bits per second; nil when nothing was learned yet.
    var estimate: Int? {
        switch (rembEstimate, feedbackEstimate) {
        case (nil, nil): return nil
        case (let remb?, nil): return remb
        case (nil, let own?): return Int(own)
        case (let remb?, let own?): return Int(min(Double(remb), own))
        }
    }

    /// The REMB, or the rate a probe proved while that stands (`probedREMBFloor`).
    var rembEstimate: Int? {
        rembBitrate.map { Int(max($0, probedREMBFloor ?? 0)) }
    }

    /// Whether a REMB fell fast within the last `rembDropTime` (`Configuration.rembDrop`).
    func rembDropping(now: Int64) -> Bool {
        rembDropAt.map { now - $0 < configuration.rembDropTime } ?? false
    }

    /// A REMB from the subscriber at `now`.
    mutating func onREMB(bitrate: UInt64, now: Int64) {
        let value = Double(min(bitrate, UInt64(configuration.maximum * 4)))
        // Against the REMB before it (however old: it stood until now) and the highest of the window.
        let recent = rembPeak.flatMap { now - $0.at <= configuration.rembDropWindow ? $0.value : nil }
        if value < max(recent ?? 0, rembBitrate ?? 0) * configuration.rembDrop { rembDropAt = now }
        if recent.map({ value >= $0 }) ?? true { rembPeak = (value, now) }
        if let floor = probedREMBFloor, value >= floor || value < (rembBitrate ?? 0) * configuration.rembFall {
            // Caught up with what the probe proved, or the receiver saw a queue and lowered it.
            probedREMBFloor = nil
        }
        rembBitrate = value
        rembProbe?.onREMB(value)
    }

    /// A receiver report block on one of the subscriber's streams (RFC 3550 §6.4.2): its fraction
    /// lost (0–1) and, when its LSR matched one of our sender reports, the round trip, µs.
    mutating func onReceiverReport(ssrc: UInt32, fractionLost: Double, roundTrip: Int64?, now: Int64) {
        rembProbe?.onReport(ssrc: ssrc, fractionLost: fractionLost, roundTrip: roundTrip, now: now)
        let rise = roundTrip.flatMap { trip in roundTripFloor.map { trip - $0.least } } ?? 0
        if fractionLost >= configuration.probedLoss || rise >= configuration.probedRoundTripRise {
            probedREMBFloor = nil
        }
        guard let roundTrip else { return }
        guard var floor = roundTripFloor else {
            roundTripFloor = (roundTrip, roundTrip, now)
            return
        }
        if now - floor.windowStart > configuration.baseRoundTripWindow {
            floor.least = floor.windowLeast ?? roundTrip
            floor.windowLeast = nil
            floor.windowStart = now
        }
        floor.windowLeast = min(floor.windowLeast ?? roundTrip, roundTrip)
        floor.least = min(floor.least, roundTrip)
        roundTripFloor = floor
    }

    /// A probe starts at `now`: packets sent from now on are measured (`probeDelivered`), and
    /// toward a REMB-only receiver its reports are judged (`rembProbe`) from `bytesSent`.
    mutating func startProbe(at now: Int64, bytesSent: Int = 0, packetsSent: Int = 0) {
        probeStart = now
        probeWindow = DeliveryWindow(span: Self.probeMeasureSpan)
        probeDelivered = nil
        rembProbe = REMBProbeEvidence(start: now, bytesSent: bytesSent, packetsSent: packetsSent, remb: rembBitrate,
                                      baseRoundTrip: roundTripFloor?.least)
    }

    /// A NACK from the subscriber while a probe toward a REMB-only receiver runs
    /// (`REMBProbeEvidence.onNACK`).
    mutating func onProbeNACK(asked: Int, packetsSent: Int) {
        rembProbe?.onNACK(asked: asked, packetsSent: packetsSent)
    }

    mutating func endProbe() {
        probeStart = nil
        probeDelivered = nil
        rembProbe = nil
    }

    /// A probe toward a REMB-only receiver proved `rate` bits per second (`REMBProbeEvidence`):
    /// the estimate stays at least there until the receiver shows a queue or its REMB catches up.
    mutating func acceptREMBProbe(_ rate: Int) {
        guard Double(rate) > (rembBitrate ?? 0) else { return }
        probedREMBFloor = min(configuration.maximum, max(probedREMBFloor ?? 0, Double(rate)))
    }

    /// A probe proved `rate` bits per second: the transport-cc estimate takes it.
    mutating func acceptProbe(_ rate: Int) {
        feedbackEstimate = min(configuration.maximum, max(feedbackEstimate ?? 0, Double(rate)))
        holdUntil = .min
    }

    /// One transport-cc feedback's packets (in sequence order) arrived at `now`.
    mutating func onTransportFeedback(_ packets: [PacketFeedback], now: Int64) {
        guard !packets.isEmpty else { return }
        var lost = 0
        var delaySum: Int64 = 0
        var received = 0
        var firstArrival: Int64?
        var lastArrival: Int64?
        var firstSend: Int64 = 0
        var lastSend: Int64 = 0
        var oneWaySum: Int64 = 0
        for packet in packets {
            guard let arrival = packet.arrivalTime else { lost += 1; continue }
            received += 1
            deliveredBytes += packet.size
            measureRecent(size: packet.size, arrival: arrival)
            if firstArrival == nil { firstSend = packet.sendTime }
            firstArrival = firstArrival ?? arrival
            lastArrival = arrival
            lastSend = packet.sendTime
            let oneWay = arrival - packet.sendTime
            trackBaseDelay(oneWay, now: now)
            oneWaySum += oneWay
            delaySum += oneWay - (baseDelay ?? oneWay)
            if let start = probeStart, packet.sendTime >= start { measureProbe(size: packet.size, arrival: arrival) }
        }
        if received > 0, let firstArrival, let lastArrival { updateDeliveredRate(first: firstArrival, last: lastArrival, now: now) }
        let lossRate = Double(lost) / Double(packets.count)
        let queueDelay = received > 0 ? delaySum / Int64(received) : 0
        lastLossRate = lossRate
        lastQueueDelay = queueDelay
        if received > 0 {
            let rise = riseOfLevel(oneWaySum / Int64(received), now: now)
            lastLossQueueDelay = min(rise, lastRise)
            lastRise = rise
        }
        let windowLoss = countLoss(lost: lost, packets: packets.count, queueDelay: lastLossQueueDelay, now: now)
        let spread = received >= 2 && lastSend > firstSend
            && Double((lastArrival ?? 0) - (firstArrival ?? 0)) >= Double(lastSend - firstSend) * configuration.rampSpread
        let ramp = received > 0 && spread && isRamp(queueDelay)
        earlierDelays = (earlierDelays.1, received > 0 ? queueDelay : nil)
        if queueDelay > configuration.delayThreshold || ramp {
            // A ramp counts as if the delay had lasted: it stays congestion while above the threshold.
            let since = ramp ? min(overuseSince ?? now, now - configuration.overuseTime) : overuseSince ?? now
            overuseSince = since
            overusing = now - since >= configuration.overuseTime
        } else {
            overuseSince = nil
            overusing = false
        }
        adjust(lossRate: lossRate, windowLoss: windowLoss, queueDelay: queueDelay, now: now)
    }

    /// Whether `queueDelay` ends three feedbacks whose queueing delay rose each time, by
    /// `rampRise` in all, to `rampDelay` or more.
    private func isRamp(_ queueDelay: Int64) -> Bool {
        guard let oldest = earlierDelays.0, let middle = earlierDelays.1 else { return false }
        return oldest < middle && middle < queueDelay && queueDelay >= configuration.rampDelay
            && queueDelay - oldest >= configuration.rampRise
    }

    /// Adds one feedback's packets to the loss window (`queueDelay`: its `lastLossQueueDelay`);
    /// returns the window's loss when this feedback completed it and that loss counts as
    /// congestion (`lossDelay`, `severeLoss`), nil otherwise.
    private mutating func countLoss(lost: Int, packets: Int, queueDelay: Int64, now: Int64) -> Double? {
        let start = lossWindowStart ?? now
        lossWindowStart = start
        lossWindowCount += packets
        lossWindowLost += lost
        lossWindowDelay = max(lossWindowDelay, queueDelay)
        guard now - start >= configuration.lossWindow, lossWindowCount >= configuration.lossWindowPackets else { return nil }
        let loss = Double(lossWindowLost) / Double(lossWindowCount)
        windowLossRate = loss
        windowLossCongested = lossWindowDelay >= configuration.lossDelay || loss > configuration.severeLoss
        lossWindowStart = now
        lossWindowCount = 0
        lossWindowLost = 0
        lossWindowDelay = 0
        return windowLossCongested ? loss : nil
    }

    // MARK: - Internals

    private mutating func adjust(lossRate: Double, windowLoss: Double?, queueDelay: Int64, now: Int64) {
        let c = configuration
        var value = feedbackEstimate ?? c.initial
        let elapsed = Double(min(1_000_000, max(0, now - (lastUpdate ?? now)))) / 1_000_000
        lastUpdate = now
        if let windowLoss, windowLoss > c.highLoss {
            value *= 1 - 0.5 * windowLoss
            holdUntil = now + c.holdAfterDecrease
        } else if lossRate > c.highLoss || windowLossRate > c.highLoss {
            // One report's loss: judged with its window; no growth meanwhile. A window's loss
            // without queueing delay holds the estimate (neither cut nor grown) until a window
            // under `highLoss`.
        } else if overusing {
            // Below what the bottleneck delivers now (its latest short window: the smoothed rate
            // still remembers the rate before the link narrowed, and the queue would keep growing).
            value = min(value, 0.85 * (recentDeliveredRate ?? deliveredRate ?? value))
            holdUntil = now + c.holdAfterDecrease
        } else if queueDelay > c.delayThreshold {
            // Above the threshold, not yet for long: neither cut nor grow.
        } else if lossRate < c.lowLoss, now >= holdUntil {
            // Growth only as far as what was delivered shows (GCC's 1.5 × acknowledged rate):
            // above it, a probe is the evidence.
            let ceiling = deliveredRate.map { 1.5 * $0 } ?? c.maximum
            if value < ceiling { value = min(ceiling, value * pow(c.increasePerSecond, elapsed)) }
        }
        feedbackEstimate = min(c.maximum, max(c.minimum, value))
    }

    private mutating func measureProbe(size: Int, arrival: Int64) {
        if let rate = probeWindow.add(size: size, arrival: arrival) { probeDelivered = Int(rate) }
    }

    /// A windowed minimum of the one-way delay: the path's delay without queueing.
    private mutating func trackBaseDelay(_ oneWay: Int64, now: Int64) {
        if now - windowStart > configuration.baseDelayWindow {
            baseDelay = windowMinimum ?? oneWay
            windowMinimum = nil
            windowStart = now
        }
        windowMinimum = min(windowMinimum ?? oneWay, oneWay)
        baseDelay = min(baseDelay ?? oneWay, oneWay)
    }

    /// How far `level` (a feedback's mean one-way delay) lies above the least of the last one to
    /// two `lossDelayWindow`s (two alternating windows, this feedback's included), µs.
    private mutating func riseOfLevel(_ level: Int64, now: Int64) -> Int64 {
        if let start = recentLevel.start, now - start < configuration.lossDelayWindow {
            recentLevel.current = min(recentLevel.current ?? level, level)
        } else {
            recentLevel = (level, recentLevel.current, now)
        }
        return level - min(recentLevel.current ?? level, recentLevel.previous ?? level)
    }

    private mutating func measureRecent(size: Int, arrival: Int64) {
        if let rate = recentWindow.add(size: size, arrival: arrival) { recentDeliveredRate = rate }
    }

    /// Delivered rate over windows of at least 500 ms of receiver time.
    private mutating func updateDeliveredRate(first: Int64, last: Int64, now: Int64) {
        let start = deliveredStart ?? first
        deliveredStart = start
        let span = last - start
        guard span >= 500_000 else { return }
        let rate = Double(deliveredBytes) * 8 * 1_000_000 / Double(span)
        deliveredRate = deliveredRate.map { 0.5 * $0 + 0.5 * rate } ?? rate
        deliveredBytes = 0
        deliveredStart = last
    }
}

/// The rate packets were delivered at, in successive windows of at least `span` of receiver time.
struct DeliveryWindow: Sendable {
    let span: Int64
    private var bytes = 0
    private var start: Int64?

    init(span: Int64) { self.span = span }

    /// Counts one packet that arrived at `arrival` (receiver clock, µs); returns the window's
    /// rate (bits per second) when this packet completes one. The first packet only starts the
    /// first window (its bytes arrived before it), and each window starts at the arrival that
    /// ended the last one (whose bytes were counted there).
    mutating func add(size: Int, arrival: Int64) -> Double? {
        guard let first = start else {
            start = arrival
            return nil
        }
        bytes += size
        let elapsed = arrival - first
        guard elapsed >= span else { return nil }
        let rate = Double(bytes) * 8 * 1_000_000 / Double(elapsed)
        start = arrival
        bytes = 0
        return rate
    }
}
