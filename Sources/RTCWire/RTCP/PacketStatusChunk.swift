/// The reception status of one packet in transport-cc feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.1).
public enum TransportCCStatus: UInt8, Hashable, Sendable {
    /// 00: not received.
    case notReceived = 0
    /// 01: received, with a 1-byte receive delta (0…63.75 ms).
    case receivedSmallDelta = 1
    /// 10: received, with a 2-byte signed receive delta.
    case receivedLargeDelta = 2
    /// 11: reserved; read as received without a delta.
    case reserved = 3

    /// Receive delta bytes that follow for this status.
    var deltaSize: Int {
        switch self {
        case .receivedSmallDelta: return 1
        case .receivedLargeDelta: return 2
        case .notReceived, .reserved: return 0
        }
    }
}

/// One 16-bit packet status chunk (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.3–3.1.4).
///
/// ```
/// |T=0| S |       run length (13 bits)      |   run length chunk
/// |T=1|S=0|   14 one-bit symbols            |   status vector, 0 = not received, 1 = small delta
/// |T=1|S=1|   7 two-bit symbols             |   status vector
/// ```
public enum PacketStatusChunk: Hashable, Sendable {
    /// `count` (≤ 8191) packets sharing one status.
    case runLength(TransportCCStatus, count: UInt16)
    /// 14 statuses, each `.notReceived` or `.receivedSmallDelta`.
    case oneBitVector([TransportCCStatus])
    /// 7 statuses.
    case twoBitVector([TransportCCStatus])

    /// How many packet statuses the chunk covers on the wire.
    public var statusCount: Int {
        switch self {
        case .runLength(_, let count): return Int(count)
        case .oneBitVector: return 14
        case .twoBitVector: return 7
        }
    }

    /// Decodes a chunk's 16 bits.
    init(rawValue: UInt16) {
        if rawValue & 0x8000 == 0 {
            self = .runLength(TransportCCStatus(rawValue: UInt8((rawValue >> 13) & 0x3)) ?? .reserved, count: rawValue & 0x1FFF)
        } else if rawValue & 0x4000 == 0 {
            self = .oneBitVector((0 ..< 14).map { index in
                rawValue & (1 << (13 - index)) != 0 ? .receivedSmallDelta : .notReceived
            })
        } else {
            self = .twoBitVector((0 ..< 7).map { index in
                TransportCCStatus(rawValue: UInt8((rawValue >> (12 - 2 * index)) & 0x3)) ?? .reserved
            })
        }
    }

    /// The chunk's 16 bits.
    /// - Precondition: vectors hold exactly 14 (one-bit, small or not received) or 7 statuses;
    ///   a run length is at most 8191.
    var rawValue: UInt16 {
        switch self {
        case .runLength(let status, let count):
            precondition(count <= 0x1FFF, "run length is 13 bits")
            return UInt16(status.rawValue) << 13 | count
        case .oneBitVector(let statuses):
            precondition(statuses.count == 14, "one-bit status vector holds 14 symbols")
            var bits: UInt16 = 0x8000
            for (index, status) in statuses.enumerated() {
                precondition(status == .notReceived || status == .receivedSmallDelta, "one-bit vectors hold 0 or 1")
                if status == .receivedSmallDelta { bits |= 1 << (13 - index) }
            }
            return bits
        case .twoBitVector(let statuses):
            precondition(statuses.count == 7, "two-bit status vector holds 7 symbols")
            var bits: UInt16 = 0xC000
            for (index, status) in statuses.enumerated() { bits |= UInt16(status.rawValue) << (12 - 2 * index) }
            return bits
        }
    }

    /// Appends the chunk's statuses, stopping once `statuses` holds `limit`.
    func expand(into statuses: inout [TransportCCStatus], limit: Int) {
        switch self {
        case .runLength(let status, let count):
            let take = min(Int(count), limit - statuses.count)
            if take > 0 { statuses.append(contentsOf: repeatElement(status, count: take)) }
        case .oneBitVector(let symbols), .twoBitVector(let symbols):
            for symbol in symbols where statuses.count < limit { statuses.append(symbol) }
        }
    }
}
