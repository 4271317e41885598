/// Transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): RTPFB, PT=205, FMT=15.
///
/// ```
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// |                     SSRC of packet sender                     |
/// |                      SSRC of media source                     |
/// |      base sequence number     |      packet status count      |
/// |                 reference time                | fb pkt. count |
/// |          packet chunk         |         packet chunk  ...     |
/// | recv delta    |  recv delta (2 bytes if large) ...            |
/// ```
/// Reference time is a signed 24-bit count of 64 ms; receive deltas count 250 µs.
/// Like libwebrtc, this writer pads to 32 bits with RTCP padding (P=1).
public struct TransportLayerCC: RTCPPacketCodable {
    /// The feedback sender.
    public var senderSSRC: UInt32
    /// The media source (libwebrtc sends the first media SSRC it saw).
    public var mediaSSRC: UInt32
    /// Transport-wide sequence number of the first packet described.
    public var baseSequenceNumber: UInt16
    /// Packets described, from `baseSequenceNumber` on.
    public var packetStatusCount: UInt16
    /// Signed 24-bit reference time in 64 ms units.
    public var referenceTime: Int32
    /// Counts feedback packets, so loss of feedback can be detected.
    public var feedbackPacketCount: UInt8
    /// Status chunks as on the wire; they may cover more statuses than `packetStatusCount`.
    public var chunks: [PacketStatusChunk]
    /// One receive delta per received status (small or large), in 250 µs ticks.
    public var receiveDeltas: [Int16]

    public static let format: UInt8 = 15

    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: UInt16,
        referenceTime: Int32, feedbackPacketCount: UInt8, chunks: [PacketStatusChunk], receiveDeltas: [Int16]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.chunks = chunks
        self.receiveDeltas = receiveDeltas
    }

    /// The statuses of the `packetStatusCount` packets, in sequence order.
    public var statuses: [TransportCCStatus] {
        var statuses: [TransportCCStatus] = []
        let limit = Int(packetStatusCount)
        statuses.reserveCapacity(limit)
        for chunk in chunks where statuses.count < limit { chunk.expand(into: &statuses, limit: limit) }
        return statuses
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.transportFeedback, format: Self.format)
        guard body.count >= 16 else { throw .packetTooShort }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        baseSequenceNumber = body.u16(8)
        packetStatusCount = body.u16(10)
        referenceTime = Int32(bitPattern: body.u24(12) << 8) >> 8
        feedbackPacketCount = body.u8(15)

        var offset = 16
        var covered = 0
        var chunks: [PacketStatusChunk] = []
        while covered < Int(packetStatusCount) {
            guard offset + 2 <= body.count else { throw .transportCCStatusOverrun }
            let chunk = PacketStatusChunk(rawValue: body.u16(offset))
            chunks.append(chunk)
            covered += chunk.statusCount
            offset += 2
        }
        self.chunks = chunks
        self.receiveDeltas = []

        // Walk runs rather than expanded statuses: a 40-byte packet can claim 65 535 statuses,
        // and each received one must have its delta bytes here, so the work stays O(bytes).
        var deltas: [Int16] = []
        try forEachStatusRun { (status, count) throws(RTCPError) in
            let size = status.deltaSize
            guard size > 0 else { return }
            guard count <= (body.count - offset) / size else { throw .transportCCDeltaOverrun }
            for _ in 0 ..< count {
                deltas.append(size == 1 ? Int16(body.u8(offset)) : Int16(bitPattern: body.u16(offset)))
                offset += size
            }
        }
        receiveDeltas = deltas
    }

    /// Calls `body` for the first `packetStatusCount` statuses as (status, repeat count) runs,
    /// without expanding run-length chunks.
    func forEachStatusRun<E: Error>(_ body: (TransportCCStatus, Int) throws(E) -> Void) throws(E) {
        var remaining = Int(packetStatusCount)
        for chunk in chunks where remaining > 0 {
            switch chunk {
            case .runLength(let status, let count):
                let take = min(Int(count), remaining)
                if take > 0 { try body(status, take) }
                remaining -= take
            case .oneBitVector(let symbols), .twoBitVector(let symbols):
                for symbol in symbols where remaining > 0 {
                    try body(symbol, 1)
                    remaining -= 1
                }
            }
        }
    }

    /// Receive delta bytes the statuses call for.
    var deltaByteCount: Int {
        var total = 0
        forEachStatusRun { status, count in total += status.deltaSize * count }
        return total
    }

    /// Bytes of chunks and deltas after the 16 fixed body bytes, before padding.
    private var unpaddedBodySize: Int { 16 + chunks.count * 2 + deltaByteCount }

    public var serializedSize: Int { RTCPHeader.size + (unpaddedBodySize + 3) & ~3 }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let unpadded = RTCPHeader.size + unpaddedBodySize
        let size = (unpadded + 3) & ~3
        let padding = size - unpadded
        var out = writer(buffer, size: size)
        RTCPHeader.write(
            count: Self.format, packetType: RTCPPacketType.transportFeedback, size: size, padding: padding > 0, into: &out)
        out.u32(senderSSRC)
        out.u32(mediaSSRC)
        out.u16(baseSequenceNumber)
        out.u16(packetStatusCount)
        out.u24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        out.u8(feedbackPacketCount)
        for chunk in chunks { out.u16(chunk.rawValue) }
        var deltaIndex = 0
        forEachStatusRun { status, count in
            guard status.deltaSize > 0 else { return }
            precondition(deltaIndex + count <= receiveDeltas.count, "one receive delta per received status")
            for delta in receiveDeltas[deltaIndex ..< deltaIndex + count] {
                if status.deltaSize == 1 {
                    precondition((0 ... 255).contains(delta), "small receive deltas are 0…255 ticks")
                    out.u8(UInt8(delta))
                } else {
                    out.u16(UInt16(bitPattern: delta))
                }
            }
            deltaIndex += count
        }
        if padding > 0 {
            out.zeros(padding - 1)
            out.u8(UInt8(padding))
        }
        return out.offset
    }
}
