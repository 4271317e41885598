// The receive-side video jitter buffer: puts VP8, VP9, H.264 or AV1 RTP payloads back in sequence-number order (wrap-aware,
// RFC 3550 §A.1), emits each frame as soon as all its packets are present, waits a bounded time for a
// missing packet (long enough for a NACK round trip, RFC 4585 §6.2.1), then gives the frame up and asks for
// a key frame (PLI, RFC 4585 §6.3.1). Memory is bounded by a fixed ring of packet slots.
//
// The buffer is a plain struct driven by the caller's clock (`nowUs`), so it is tested without timers.
// Ring mechanics (examining, taking and skipping frames) live in `VideoJitterBuffer+Ring.swift`.

import RTCWire

// MARK: - Types

/// Reorders VP8, VP9, H.264 or AV1 RTP packets, emits complete frames, and reports what to NACK and when to ask for a key frame.
/// A VP8 frame starts at a descriptor with S = 1 and PID = 0 (RFC 7741 §4.2); an H.264 access unit at a
/// payload that begins a NAL unit (single, STAP-A, or an FU-A's first fragment, RFC 6184 §5.6–5.8), and its
/// payloads are depacketized into Annex B when it is complete; an AV1 temporal unit at a payload that
/// does not continue an OBU (Z clear, av1-rtp-spec §4.4), depacketized into OBUs with their sizes.
public struct VideoJitterBuffer: Sendable {
    /// Tuning knobs, with defaults for interactive video.
    public struct Configuration: Sendable, Equatable {
        /// Packet slots in the ring (the memory bound: about `capacity` × the payload size).
        public var capacity: Int = 1_024
        /// How long to wait for a missing packet before giving up its frame, in microseconds.
        public var maxWaitUs: Int64 = 250_000
        /// Minimum time between two NACKs of the same packet (about one round trip), in microseconds.
        public var nackIntervalUs: Int64 = 40_000
        /// How many times one packet is NACKed before the buffer stops asking.
        public var maxNackRetries: Int = 5
        /// Minimum time between two key-frame requests, in microseconds.
        public var keyFrameRequestIntervalUs: Int64 = 500_000
        /// The payload format of the stream.
        public var codec: VideoCodec = .vp8
        /// The defaults.
        public init() {}
    }

    /// What `insert` did with a packet.
    public enum InsertResult: Sendable, Equatable {
        /// Stored for reordering.
        case accepted
        /// Already held; ignored.
        case duplicate
        /// Older than what was already emitted or given up; ignored.
        case late
        /// So far from the buffered window that the buffer restarted from this packet (stream jump or restart).
        case reset
    }

    /// Running counters.
    public struct Statistics: Sendable, Equatable {
        /// Packets stored.
        public var packetsAccepted = 0
        /// Packets ignored as duplicates.
        public var duplicates = 0
        /// Packets ignored as late.
        public var latePackets = 0
        /// Packets given up as lost (their frame was skipped).
        public var lostPackets = 0
        /// Frames emitted.
        public var framesEmitted = 0
        /// Frames dropped: incomplete, or delta frames withheld while waiting for a key frame.
        public var framesDropped = 0
        /// Times the buffer restarted from a far-away packet.
        public var resets = 0
    }

    struct Packet: Sendable {
        var sequenceNumber: UInt16
        var timestamp: UInt32
        var marker: Bool
        var isFrameStart: Bool
        var isKeyFrame: Bool
        var pictureID: UInt16?
        var payload: [UInt8]
        var dataOffset: Int
        /// A padding-only packet (RFC 3550 §5.1): it holds a sequence number and nothing else.
        var isPadding = false
    }

    /// The settings in force.
    public let configuration: Configuration
    /// Counters since creation.
    public internal(set) var statistics = Statistics()
    /// Whether the decoder needs a key frame: at the start, and after a frame was given up.
    public internal(set) var needsKeyFrame = true

    var slots: [Packet?]
    /// The missing numbers between the head and the newest packet, and their NACKs: the one loss
    /// tracker, paced by `nackIntervalUs`. It gives nothing up by age: the buffer gives up frames
    /// (`maxWaitUs`) and forgets their numbers as its head moves past them.
    var losses: NackGenerator
    /// Next sequence number to emit; everything before it is done. Nil until the first packet.
    var head: UInt16?
    /// Newest sequence number received.
    var highest: UInt16 = 0
    /// Packets currently held.
    public internal(set) var packetCount = 0
    /// When the buffer first found the head frame incomplete.
    var blockedSinceUs: Int64?
    /// Start of the newest key frame seen, to jump to it without waiting for older frames.
    var newestKeyFrameStart: UInt16?
    var lastKeyFrameRequestUs: Int64?
    /// Whether the head has moved since the start (or the last reset): from then on, older packets are late.
    var hasAdvanced = false

    // MARK: - Public API

    /// Creates an empty buffer.
    public init(configuration: Configuration = Configuration()) {
        precondition(configuration.capacity >= 16 && configuration.capacity <= 32_768, "capacity out of range")
        self.configuration = configuration
        slots = Array(repeating: nil, count: configuration.capacity)
        losses = NackGenerator(maxEntries: configuration.capacity, maxRetries: configuration.maxNackRetries,
                               minRetryInterval: configuration.nackIntervalUs)
    }

    /// Stores one RTP packet's payload.
    /// - Parameters:
    ///   - payload: the RTP payload (VP8 or VP9 descriptor + data, an H.264 NAL unit, STAP-A or FU-A,
    ///     or an AV1 aggregation header + OBU elements); kept without copying.
    ///   - sequenceNumber: RTP sequence number.
    ///   - timestamp: RTP timestamp (90 kHz).
    ///   - marker: RTP marker bit (last packet of a frame).
    ///   - arrivalUs: when it arrived, on the clock of `popFrame(nowUs:)`: a gap it reveals waits
    ///     for reordering from then (`NackGenerator`). 0 for a caller that does not time arrivals.
    /// - Throws: `RTPPayloadError` for a malformed VP8 or VP9 descriptor or an empty H.264 or AV1
    ///   payload (the packet is not stored).
    @discardableResult
    public mutating func insert(payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32,
                                marker: Bool, arrivalUs: Int64 = 0) throws(RTPPayloadError) -> InsertResult {
        let packet: Packet
        switch configuration.codec {
        case .vp8:
            let (descriptor, offset) = try VP8PayloadDescriptor.parse(payload)
            if descriptor.isFrameStart && payload.count < offset + 3 { throw RTPPayloadError.truncatedVP8Header }
            packet = Packet(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker,
                            isFrameStart: descriptor.isFrameStart,
                            isKeyFrame: descriptor.isFrameStart && payload[offset] & 0x01 == 0,
                            pictureID: descriptor.pictureID, payload: payload, dataOffset: offset)
        case .vp9:
            // A picture starts at the beginning (B) of its base spatial layer's frame: an SFU
            // forwards every layer up to the one it chose (RFC 9628 §4.2); P = 0 there is a key picture.
            let (descriptor, offset) = try VP9PayloadDescriptor.parse(payload)
            let start = descriptor.beginningOfFrame && descriptor.spatialLayer == 0
            packet = Packet(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, isFrameStart: start,
                            isKeyFrame: start && !descriptor.interPicturePredicted, pictureID: descriptor.pictureID,
                            payload: payload, dataOffset: offset)
        case .av1:
            // av1-rtp-spec §4.4: a temporal unit starts with a new OBU (Z clear) after the previous
            // unit's marker; a key frame's first payload has N, or (any sender) a sequence header.
            // A Z-clear payload inside a unit also reads as a start: when the buffer skips to one
            // after a loss, it waits for a key frame, and a unit's later payloads are never one.
            guard !payload.isEmpty else { throw RTPPayloadError.emptyPayload }
            let (start, key) = payload.withUnsafeBytes {
                (AV1.startsOBU(payload: $0), AV1.isKeyFrame(payload: $0) || AV1.startsWithSequenceHeader(payload: $0))
            }
            packet = Packet(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, isFrameStart: start,
                            isKeyFrame: key, pictureID: nil, payload: payload, dataOffset: 0)
        case .h264:
            guard !payload.isEmpty else { throw RTPPayloadError.emptyPayload }
            // A key access unit starts with its SPS (see `H264Depacketizer.carriesSPS`).
            let (start, key) = payload.withUnsafeBytes { (H264Depacketizer.startsNALUnit($0), H264Depacketizer.carriesSPS($0)) }
            packet = Packet(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, isFrameStart: start,
                            isKeyFrame: key, pictureID: nil, payload: payload, dataOffset: 0)
        }
        return store(packet, arrivalUs: arrivalUs)
    }

    /// Records a padding-only packet (RFC 3550 §5.1, a sender probing for bandwidth): its number
    /// is not missing (no NACK), and the buffer steps over it between frames. `arrivalUs` as for `insert`.
    @discardableResult
    public mutating func insertPadding(sequenceNumber: UInt16, timestamp: UInt32, arrivalUs: Int64 = 0) -> InsertResult {
        store(Packet(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: false, isFrameStart: false, isKeyFrame: false,
                     pictureID: nil, payload: [], dataOffset: 0, isPadding: true), arrivalUs: arrivalUs)
    }

    private mutating func store(_ packet: Packet, arrivalUs: Int64) -> InsertResult {
        let sequenceNumber = packet.sequenceNumber
        var result = InsertResult.accepted
        if let head {
            let distance = SequenceNumber.distance(from: head, to: sequenceNumber)
            if distance >= configuration.capacity || distance < -configuration.capacity {
                reset(at: sequenceNumber)
                result = .reset
            } else if distance < 0 {
                // Until the first frame leaves, an earlier packet (reordered at stream start) moves the head back.
                guard !hasAdvanced, SequenceNumber.distance(from: sequenceNumber, to: highest) < configuration.capacity else {
                    statistics.latePackets += 1
                    return .late
                }
                losses.markMissing(after: sequenceNumber, before: head, now: arrivalUs)
                self.head = sequenceNumber
            }
        } else {
            head = sequenceNumber
            highest = sequenceNumber
        }
        let index = slotIndex(sequenceNumber)
        if slots[index]?.sequenceNumber == sequenceNumber {
            statistics.duplicates += 1
            return .duplicate
        }
        slots[index] = packet
        packetCount += 1
        statistics.packetsAccepted += 1
        // Every number skipped over is now missing; this one no longer is. The window is smaller
        // than the list (`capacity`), so it never overflows; arrival times time the reordering
        // allowance only (no `maxAge`).
        _ = losses.received(sequenceNumber, now: arrivalUs)
        if SequenceNumber.isNewer(sequenceNumber, than: highest) { highest = sequenceNumber }
        if packet.isKeyFrame, newestKeyFrameStart.map({ SequenceNumber.isNewer(sequenceNumber, than: $0) }) ?? true {
            newestKeyFrameStart = sequenceNumber
        }
        return result
    }

    /// The next frame ready for the decoder, or nil while the head frame is incomplete and still worth waiting for.
    /// Call after each insert and on a timer; frames come out in order, delta frames only when decodable.
    public mutating func popFrame(nowUs: Int64) -> DepacketizedVideoFrame? {
        while let head, packetCount > 0 {
            if let first = packet(head), first.isPadding {
                remove(head)
                advanceHead(to: head &+ 1)
                continue
            }
            switch examineHead(head) {
            case .complete(let last):
                guard let frame = takeFrame(from: head, to: last) else {
                    // Malformed H.264 payloads: the frame cannot be decoded, nor what refers to it.
                    statistics.framesDropped += 1
                    needsKeyFrame = true
                    continue
                }
                if needsKeyFrame && !frame.isKeyFrame {
                    statistics.framesDropped += 1
                    continue
                }
                if frame.isKeyFrame { needsKeyFrame = false }
                statistics.framesEmitted += 1
                return frame
            case .broken where hasAdvanced:
                // The head packet is not a frame start (its start is gone) or the frame is malformed.
                skipToNextFrameStart(after: head)
            case .broken, .incomplete:
                // At stream start a continuation may lead: its frame start can still arrive, so wait for it too.
                if let key = newestKeyFrameStart, SequenceNumber.isNewer(key, than: head),
                   case .complete = examineHead(key) {
                    // A complete key frame is buffered: no reason to wait for anything before it.
                    discard(from: head, upTo: key)
                    continue
                }
                guard let since = blockedSinceUs else { blockedSinceUs = nowUs; return nil }
                guard nowUs - since >= configuration.maxWaitUs else { return nil }
                statistics.framesDropped += 1
                skipToNextFrameStart(after: head)
            }
        }
        return nil
    }

    /// All frames ready now (see `popFrame(nowUs:)`).
    public mutating func popFrames(nowUs: Int64) -> [DepacketizedVideoFrame] {
        var frames: [DepacketizedVideoFrame] = []
        while let frame = popFrame(nowUs: nowUs) { frames.append(frame) }
        return frames
    }

    /// Sequence numbers to NACK now: missing packets overdue for reordering (`NackGenerator`), not
    /// asked for within `nackIntervalUs` and not yet asked for `maxNackRetries` times. Each call
    /// counts as sending those NACKs.
    public mutating func missingSequenceNumbers(nowUs: Int64) -> [UInt16] {
        var result: [UInt16] = []
        missingSequenceNumbers(nowUs: nowUs, into: &result)
        return result
    }

    /// Appends the sequence numbers to NACK now to `due` (see `missingSequenceNumbers(nowUs:)`),
    /// without allocating when `due` has room.
    public mutating func missingSequenceNumbers(nowUs: Int64, into due: inout [UInt16]) {
        // Giving up is the buffer's (by frame, `maxWaitUs`), so the tracker's give-up is not a key-frame request here.
        _ = losses.poll(now: nowUs, rtt: 0, into: &due)
    }

    /// Whether to send a key-frame request (PLI) now: true while `needsKeyFrame`, at most once per
    /// `keyFrameRequestIntervalUs`. Each true answer counts as sending the request.
    public mutating func shouldRequestKeyFrame(nowUs: Int64) -> Bool {
        guard needsKeyFrame else { return false }
        if let last = lastKeyFrameRequestUs, nowUs - last < configuration.keyFrameRequestIntervalUs { return false }
        lastKeyFrameRequestUs = nowUs
        return true
    }
}
