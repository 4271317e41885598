// The receive-side audio playout buffer: Opus RTP payloads are reordered by sequence number (wrap-aware),
// held until a small target depth is reached, then played one packet per playout tick. A packet arriving
// after its turn is dropped; a missing packet becomes concealment, rebuilt from the next packet's in-band FEC
// when that packet is already here (RFC 6716 §2.1.7), else packet-loss concealment. An empty buffer is an
// underrun (or DTX silence: the sender skips packets without skipping sequence numbers, RFC 7587 §3.1.3).

import RTCWire

// MARK: - Types

/// Reorders Opus packets and hands out one playout slot per tick (usually 20 ms).
public struct AudioPlayoutBuffer: Sendable {
    /// Tuning knobs.
    public struct Configuration: Sendable, Equatable {
        /// Packets buffered before playout starts (3 × 20 ms = 60 ms).
        public var targetDepth: Int = 3
        /// Packets buffered beyond which the oldest are skipped to bring latency back to `targetDepth`.
        public var maxDepth: Int = 15
        /// Packet slots (memory bound); packets further ahead than this restart the buffer.
        public var capacity: Int = 128
        /// The defaults.
        public init() {}
    }

    /// What to play for one tick.
    public enum Slot: Sendable, Equatable {
        /// The packet due now.
        case packet([UInt8])
        /// The packet due now is lost; `next` is the following packet when present (for FEC decoding).
        case lost(next: [UInt8]?)
        /// Nothing buffered (before start, an underrun, or DTX silence): play silence or concealment.
        case empty
    }

    /// Running counters.
    public struct Statistics: Sendable, Equatable {
        /// Packets played.
        public var played = 0
        /// Ticks concealed because their packet was missing.
        public var concealed = 0
        /// Packets dropped because they arrived after their turn.
        public var late = 0
        /// Packets ignored as duplicates.
        public var duplicates = 0
        /// Packets skipped to cut latency.
        public var skipped = 0
    }

    /// The settings in force.
    public let configuration: Configuration
    /// Counters since creation.
    public private(set) var statistics = Statistics()
    private var slots: [(sequence: UInt16, timestamp: UInt32, payload: [UInt8])?]
    /// Next sequence number to play; nil before the first packet.
    private var playhead: UInt16?
    private var started = false
    /// Packets currently held.
    public private(set) var count = 0
    /// The RTP timestamp of the packet `next()` played last (what a recorder stamps it with).
    public private(set) var lastPlayedTimestamp: UInt32?

    // MARK: - Public API

    /// Creates an empty buffer.
    public init(configuration: Configuration = Configuration()) {
        precondition(configuration.capacity >= 8 && configuration.capacity <= 32_768, "capacity out of range")
        precondition(configuration.targetDepth >= 1 && configuration.maxDepth > configuration.targetDepth, "depths out of range")
        self.configuration = configuration
        slots = Array(repeating: nil, count: configuration.capacity)
    }

    /// Stores one Opus RTP payload with its RTP timestamp. Returns false when it was dropped (late or duplicate).
    @discardableResult
    public mutating func insert(payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32 = 0) -> Bool {
        if let playhead {
            let distance = SequenceNumber.distance(from: playhead, to: sequenceNumber)
            if distance >= configuration.capacity || distance < -configuration.capacity {
                restart(at: sequenceNumber)
            } else if distance < 0 {
                // Before playout starts, an earlier packet that arrives out of order becomes the new start.
                guard !started else {
                    statistics.late += 1
                    return false
                }
                self.playhead = sequenceNumber
            }
        } else {
            restart(at: sequenceNumber)
        }
        let index = Int(sequenceNumber) % configuration.capacity
        if slots[index]?.sequence == sequenceNumber {
            statistics.duplicates += 1
            return false
        }
        slots[index] = (sequenceNumber, timestamp, payload)
        count += 1
        return true
    }

    /// Whether `insert` would keep packet `sequenceNumber` now: it is not held already, and it is
    /// not behind the playhead once playout started, nor so far away that it would restart the
    /// buffer (a receiver rebuilding a lost packet from redundancy asks first, RFC 2198).
    public func accepts(_ sequenceNumber: UInt16) -> Bool {
        if let playhead {
            let distance = SequenceNumber.distance(from: playhead, to: sequenceNumber)
            if distance >= configuration.capacity || distance < -configuration.capacity { return false }
            if distance < 0, started { return false }
        }
        return slots[Int(sequenceNumber) % configuration.capacity]?.sequence != sequenceNumber
    }

    /// The slot to play for this tick; call once per packet duration from the playout clock.
    public mutating func next() -> Slot {
        guard var playhead, count > 0 else {
            // Underrun or DTX pause: build the target depth up again before resuming.
            started = false
            return .empty
        }
        if !started {
            guard count >= configuration.targetDepth else { return .empty }
            started = true
        }
        // Too much audio queued (a burst after a stall): skip the oldest to get back to the target latency.
        while count > configuration.maxDepth {
            if take(playhead) != nil { statistics.skipped += 1 }
            playhead &+= 1
        }
        defer { self.playhead = playhead }
        if let (payload, timestamp) = take(playhead) {
            lastPlayedTimestamp = timestamp
            playhead &+= 1
            statistics.played += 1
            return .packet(payload)
        }
        statistics.concealed += 1
        let next = peek(playhead &+ 1)
        playhead &+= 1
        return .lost(next: next)
    }

    /// Decodes the next slot: the packet, FEC from the following packet, concealment, or silence before start.
    /// - Parameter decoder: the stream's Opus decoder (its state carries over from tick to tick).
    public mutating func nextAudio(decoder: OpusDecoder) throws -> AudioPCMBuffer {
        try Self.decode(next(), decoder: decoder)
    }

    /// Decodes one slot `next()` returned: the packet, FEC from the following packet, concealment, or silence.
    public static func decode(_ slot: Slot, decoder: OpusDecoder) throws -> AudioPCMBuffer {
        switch slot {
        case .packet(let payload):
            return try decoder.decode(payload)
        case .lost(let nextPacket?):
            return try decoder.decodeFEC(from: nextPacket)
        case .lost(nil):
            return try decoder.decode(nil)
        case .empty:
            return .silence(frameCount: decoder.lastPacketDuration, sampleRate: decoder.sampleRate,
                            channels: decoder.channels)
        }
    }

    // MARK: - Internals

    private mutating func take(_ sequence: UInt16) -> ([UInt8], UInt32)? {
        let index = Int(sequence) % configuration.capacity
        guard let slot = slots[index], slot.sequence == sequence else { return nil }
        slots[index] = nil
        count -= 1
        return (slot.payload, slot.timestamp)
    }

    private func peek(_ sequence: UInt16) -> [UInt8]? {
        guard let slot = slots[Int(sequence) % configuration.capacity], slot.sequence == sequence else { return nil }
        return slot.payload
    }

    private mutating func restart(at sequence: UInt16) {
        for index in slots.indices { slots[index] = nil }
        count = 0
        playhead = sequence
        started = false
    }
}
