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

        var deltas: [Int16] = []
        for status in statuses {
            switch status.deltaSize {
            case 1:
                guard offset + 1 <= body.count else { throw .transportCCDeltaOverrun }
                deltas.append(Int16(body.u8(offset)))
                offset += 1
            case 2:
                guard offset + 2 <= body.count else { throw .transportCCDeltaOverrun }
                deltas.append(Int16(bitPattern: body.u16(offset)))
                offset += 2
            default:
                continue
            }
        }
        receiveDeltas = deltas
    }

    /// Bytes of chunks and deltas after the 16 fixed body bytes, before padding.
    private var unpaddedBodySize: Int {
        let deltaBytes = statuses.reduce(0) { $0 + $1.deltaSize }
        return 16 + chunks.count * 2 + deltaBytes
    }

    public var serializedSize: Int { RTCPHeader.size + (unpaddedBodySize + 3) & ~3 }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let statuses = self.statuses
        let unpadded = RTCPHeader.size + 16 + chunks.count * 2 + statuses.reduce(0) { $0 + $1.deltaSize }
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
        for status in statuses where status.deltaSize > 0 {
            precondition(deltaIndex < receiveDeltas.count, "one receive delta per received status")
            let delta = receiveDeltas[deltaIndex]
            deltaIndex += 1
            if status.deltaSize == 1 {
                precondition((0 ... 255).contains(delta), "small receive deltas are 0…255 ticks")
                out.u8(UInt8(delta))
            } else {
                out.u16(UInt16(bitPattern: delta))
            }
        }
        if padding > 0 {
            out.zeros(padding - 1)
            out.u8(UInt8(padding))
        }
        return out.offset
    }
}
