import RTCWire
import SRTC
import SRTCProtocol

/// One stream a load subscriber receives: RFC 3550 reception statistics (for loss and receiver
/// reports), the sequence numbers it NACKed and still waits for, and when its first packet came.
/// I/O thread only (the subscriber's), hence `@unchecked Sendable`: it is built elsewhere and
/// handed over once.
// @unchecked Sendable: built elsewhere and handed over once, then used only on its subscriber's I/O thread.
package final class LoadReceivedStream: @unchecked Sendable {
    /// Counters of one stream over the subscriber's life.
    package struct Statistics: Sendable {
        /// The section's mid in the subscriber's transport.
        package var mid: String
        package var kind: TrackKind
        package var received: Int
        package var bytes: Int
        /// Packets from the first to the highest sequence number seen.
        package var expected: Int
        /// `expected − received`, clamped at 0 (duplicates count once).
        package var lost: Int
        /// NACK packets sent, and the sequence numbers they asked for.
        package var nacksSent: Int
        package var nackedPackets: Int
        /// Asked-for packets that then arrived.
        package var recovered: Int
        package var plisSent: Int
        /// From the subscription request to the first packet, µs (nil before it).
        package var firstPacketDelay: Int64?
        /// Packets the publisher sent on this stream since the first one arrived here (nil when
        /// the source is unknown).
        package var sourceSent: Int?
    }

    /// One received packet kept for a check that decodes (interop tests only).
    package struct CapturedPacket: Sendable {
        package var sequenceNumber: UInt16
        package var timestamp: UInt32
        package var marker: Bool
        package var payload: [UInt8]
        /// When it arrived (monotonic µs, `LoadClock`).
        package var arrival: Int64 = 0
    }

    let mid: String
    let kind: TrackKind
    var ssrc: UInt32
    /// Every packet's payload, when the subscriber captures (never in a load run: it allocates).
    private(set) var captured: [CapturedPacket]?
    let absCaptureTimeID: UInt8
    let source: LoadStreamSender?

    private var statistics: RTPReceiveStatistics
    /// The missing numbers (the one loss tracker): each NACKed once, when the packet after its
    /// gap arrives (no resend: the retry interval is longer than a number's life), and given up
    /// after a second; a gap longer than the list is not NACKed. Either way a video stream then
    /// asks for a key frame.
    private var losses = NackGenerator(maxEntries: 256, maxRetries: .max, minRetryInterval: .max, maxAge: 1_000_000)
    /// Some number was given up since the last `expireMissing`.
    private var gaveUp = false
    private var firstArrival: Int64?
    private var sourceSentAtFirst = 0
    private var nacksSent = 0
    private var nackedPackets = 0
    private var recovered = 0
    private var plisSent = 0
    private var lastPLI: Int64 = .min

    init(mid: String, kind: TrackKind, ssrc: UInt32, absCaptureTimeID: UInt8, source: LoadStreamSender?, capture: Bool = false) {
        captured = capture ? [] : nil
        self.mid = mid
        self.kind = kind
        self.ssrc = ssrc
        self.absCaptureTimeID = absCaptureTimeID
        self.source = source
        statistics = RTPReceiveStatistics(clockRate: kind == .audio ? 48_000 : 90_000)
    }

    var isEmpty: Bool { firstArrival == nil }

    // MARK: - Packets

    /// Counts one packet; returns the sequence numbers to NACK now (a new gap before it).
    func receive(_ view: RTPPacketView, now: Int64) -> [UInt16] {
        if firstArrival == nil {
            firstArrival = now
            sourceSentAtFirst = source?.packetsSent.load(ordering: .relaxed) ?? 0
        }
        statistics.update(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, arrivalMicros: now, size: view.bytes.count)
        captured?.append(CapturedPacket(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, marker: view.marker,
                                        payload: Array(view.payload), arrival: now))
        if losses.wasRequested(view.sequenceNumber) { recovered += 1 }
        if losses.received(view.sequenceNumber, now: now) { gaveUp = true }
        guard !losses.entries.isEmpty else { return [] }
        var lost: [UInt16] = []
        if losses.poll(now: now, rtt: 0, into: &lost) { gaveUp = true }
        if !lost.isEmpty {
            nacksSent += 1
            nackedPackets += lost.count
        }
        return lost
    }

    /// Numbers the last `expireMissing` found overdue (a gap that waited for reordering and no
    /// packet came since to send its NACK): the caller NACKs them with its feedback.
    private(set) var overdueNACKs: [UInt16] = []

    /// Gives up sequence numbers missing for over a second; true when a video stream should ask
    /// for a key frame (something was given up; at most once a second).
    func expireMissing(now: Int64) -> Bool {
        overdueNACKs.removeAll(keepingCapacity: true)
        if losses.poll(now: now, rtt: 0, into: &overdueNACKs) { gaveUp = true }
        if !overdueNACKs.isEmpty {
            nacksSent += 1
            nackedPackets += overdueNACKs.count
        }
        let due = gaveUp
        gaveUp = false
        guard kind == .video, due, lastPLI == .min || now - lastPLI >= 1_000_000 else { return false }
        lastPLI = now
        plisSent += 1
        return true
    }

    func senderReportArrived(_ ntp: NTPTime, at seconds: Double) {
        statistics.senderReportArrived(ntp: ntp, arrivalMicros: Int64(seconds * 1e6))
    }

    /// This stream's receiver-report block, once something arrived.
    func receptionReport(now seconds: Double) -> ReceptionReport? {
        guard firstArrival != nil else { return nil }
        return statistics.makeReportBlock(ssrc: ssrc, nowMicros: Int64(seconds * 1e6))
    }

    func statistics(now: Int64, requestTime: Int64) -> Statistics {
        let expected = Int(statistics.packetsExpected), received = Int(statistics.packetsReceived)
        return Statistics(
            mid: mid, kind: kind, received: received, bytes: Int(statistics.bytesReceived), expected: expected,
            lost: max(0, expected - received), nacksSent: nacksSent, nackedPackets: nackedPackets,
            recovered: recovered, plisSent: plisSent, firstPacketDelay: firstArrival.map { $0 - requestTime },
            sourceSent: firstArrival == nil ? 0 : source.map { $0.packetsSent.load(ordering: .relaxed) - sourceSentAtFirst })
    }
}
