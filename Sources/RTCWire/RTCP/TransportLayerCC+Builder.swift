// Building transport-cc feedback from arrival times, and reading it back as per-packet results.

/// A packet the receiver got: its transport-wide sequence number and arrival time.
public struct TransportCCArrival: Hashable, Sendable {
    public var sequenceNumber: UInt16
    /// Arrival time in microseconds on the receiver's clock (any epoch).
    public var arrivalTime: Int64

    public init(sequenceNumber: UInt16, arrivalTime: Int64) {
        self.sequenceNumber = sequenceNumber
        self.arrivalTime = arrivalTime
    }
}

/// One packet's outcome read from feedback.
public struct TransportCCPacketResult: Hashable, Sendable {
    public var sequenceNumber: UInt16
    public var status: TransportCCStatus
    /// Arrival time in microseconds, counted from reference time 0 (nil when not received).
    public var arrivalTime: Int64?
}

extension TransportLayerCC {
    /// Microseconds per reference time unit and per receive delta tick.
    static let referenceUnit: Int64 = 64_000
    static let deltaTick: Int64 = 250

    /// Builds feedback covering every sequence number from the oldest to the newest arrival
    /// (wrap-aware); sequence numbers not in `arrivals` are reported lost.
    /// - Throws: `.transportCCDeltaOutOfRange` when two consecutive arrivals are more than
    ///   ~8 s apart, `.transportCCTooManyPackets` past 65 535 packets.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, feedbackPacketCount: UInt8, arrivals: [TransportCCArrival]
    ) throws(RTCPError) {
        let ordered = Self.orderedUnique(arrivals)
        guard let first = ordered.first, let last = ordered.last else {
            self.init(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: 0, packetStatusCount: 0,
                referenceTime: 0, feedbackPacketCount: feedbackPacketCount, chunks: [], receiveDeltas: [])
            return
        }
        // Positions are measured from the first given arrival, the anchor `orderedUnique` sorted by.
        let anchor = arrivals[0].sequenceNumber
        let firstPosition = SequenceNumber.distance(from: anchor, to: first.sequenceNumber)
        let count = SequenceNumber.distance(from: anchor, to: last.sequenceNumber) - firstPosition + 1
        guard count <= 0xFFFF else { throw .transportCCTooManyPackets }

        // Reference time: the first arrival rounded down to 64 ms; deltas are counted in whole
        // ticks from there, so rounding never accumulates (as libwebrtc does).
        let referenceUnits = Self.floorDivide(first.arrivalTime, Self.referenceUnit)
        var previousTicks = referenceUnits * (Self.referenceUnit / Self.deltaTick)
        var statuses = [TransportCCStatus](repeating: .notReceived, count: count)
        var deltas: [Int16] = []
        deltas.reserveCapacity(ordered.count)
        for arrival in ordered {
            let index = SequenceNumber.distance(from: anchor, to: arrival.sequenceNumber) - firstPosition
            let ticks = Self.floorDivide(arrival.arrivalTime, Self.deltaTick)
            let delta = ticks - previousTicks
            guard delta >= Int64(Int16.min), delta <= Int64(Int16.max) else { throw .transportCCDeltaOutOfRange }
            statuses[index] = (0 ... 255).contains(delta) ? .receivedSmallDelta : .receivedLargeDelta
            deltas.append(Int16(delta))
            previousTicks = ticks
        }
        // The 24-bit field wraps (libwebrtc does the same); receivers compare successive values.
        let wrapped = Int32(truncatingIfNeeded: referenceUnits & 0xFF_FFFF)
        self.init(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: first.sequenceNumber,
            packetStatusCount: UInt16(count), referenceTime: (wrapped << 8) >> 8,
            feedbackPacketCount: feedbackPacketCount, chunks: Self.encodeChunks(statuses), receiveDeltas: deltas)
    }

    /// Each described packet with its status and arrival time.
    public var packetResults: [TransportCCPacketResult] {
        var time = Int64(referenceTime) * Self.referenceUnit
        var deltaIndex = 0
        return statuses.enumerated().map { index, status in
            var arrival: Int64? = nil
            if status.deltaSize > 0, deltaIndex < receiveDeltas.count {
                time += Int64(receiveDeltas[deltaIndex]) * Self.deltaTick
                deltaIndex += 1
                arrival = time
            } else if status == .reserved {
                arrival = time
            }
            return TransportCCPacketResult(
                sequenceNumber: baseSequenceNumber &+ UInt16(truncatingIfNeeded: index), status: status, arrivalTime: arrival)
        }
    }

    /// Arrivals sorted by sequence number (wrap-aware from the first given), first copy kept.
    static func orderedUnique(_ arrivals: [TransportCCArrival]) -> [TransportCCArrival] {
        guard let anchor = arrivals.first?.sequenceNumber else { return [] }
        var seen = Set<UInt16>()
        let unique = arrivals.filter { seen.insert($0.sequenceNumber).inserted }
        return unique.sorted {
            SequenceNumber.distance(from: anchor, to: $0.sequenceNumber)
                < SequenceNumber.distance(from: anchor, to: $1.sequenceNumber)
        }
    }

    /// Greedy chunking: a run length for long runs (or a run that ends the list), else a one-bit
    /// vector of 14 when no large delta is among them, else a two-bit vector of 7.
    static func encodeChunks(_ statuses: [TransportCCStatus]) -> [PacketStatusChunk] {
        var chunks: [PacketStatusChunk] = []
        var index = 0
        while index < statuses.count {
            var run = 1
            while index + run < statuses.count, statuses[index + run] == statuses[index], run < 0x1FFF { run += 1 }
            if run >= 14 || index + run == statuses.count {
                chunks.append(.runLength(statuses[index], count: UInt16(run)))
                index += run
                continue
            }
            let oneBitTake = min(14, statuses.count - index)
            let window = statuses[index ..< index + oneBitTake]
            if window.allSatisfy({ $0 == .notReceived || $0 == .receivedSmallDelta }) {
                chunks.append(.oneBitVector(Array(window) + Array(repeating: .notReceived, count: 14 - oneBitTake)))
                index += oneBitTake
            } else {
                let take = min(7, statuses.count - index)
                chunks.append(.twoBitVector(Array(statuses[index ..< index + take]) + Array(repeating: .notReceived, count: 7 - take)))
                index += take
            }
        }
        return chunks
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && value < 0) ? quotient - 1 : quotient
    }
}
