/// One report block of an SR or RR (RFC 3550 §6.4.1): reception statistics for one source.
///
/// ```
/// |                 SSRC_n (source identifier)                    |
/// | fraction lost |       cumulative number of packets lost       |
/// |           extended highest sequence number received           |
/// |                      interarrival jitter                      |
/// |                         last SR (LSR)                         |
/// |                   delay since last SR (DLSR)                  |
/// ```
public struct ReceptionReport: Hashable, Sendable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction lost since the last report, in 1/256 units.
    public var fractionLost: UInt8
    /// Cumulative packets lost: a signed 24-bit value (duplicates can make it negative).
    public var totalLost: Int32
    /// Cycles (high 16 bits) and highest sequence number received (low 16 bits).
    public var lastSequenceNumber: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the last SR's NTP time (0 if none yet).
    public var lastSenderReport: UInt32
    /// Delay since that SR, in 1/65536 seconds.
    public var delay: UInt32

    /// Size of a block in bytes.
    public static let size = 24

    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, totalLost: Int32 = 0, lastSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delay: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.totalLost = min(max(totalLost, -0x80_0000), 0x7F_FFFF)
        self.lastSequenceNumber = lastSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delay = delay
    }

    /// Reads a block at `offset`; the caller has checked 24 bytes are there.
    init(bytes: UnsafeRawBufferPointer, at offset: Int) {
        ssrc = bytes.u32(offset)
        fractionLost = bytes.u8(offset + 4)
        // Sign-extend the 24-bit cumulative loss.
        totalLost = Int32(bitPattern: bytes.u24(offset + 5) << 8) >> 8
        lastSequenceNumber = bytes.u32(offset + 8)
        jitter = bytes.u32(offset + 12)
        lastSenderReport = bytes.u32(offset + 16)
        delay = bytes.u32(offset + 20)
    }

    func write(into writer: inout ByteWriter) {
        writer.u32(ssrc)
        writer.u8(fractionLost)
        writer.u24(UInt32(bitPattern: totalLost) & 0xFF_FFFF)
        writer.u32(lastSequenceNumber)
        writer.u32(jitter)
        writer.u32(lastSenderReport)
        writer.u32(delay)
    }

    /// Reads `count` blocks starting at `offset` of `body`, checking they fit.
    static func readBlocks(
        _ body: UnsafeRawBufferPointer, at offset: Int, count: Int
    ) throws(RTCPError) -> [ReceptionReport] {
        guard offset + count * size <= body.count else { throw .reportCountOverrun }
        var reports: [ReceptionReport] = []
        reports.reserveCapacity(count)
        for index in 0 ..< count { reports.append(ReceptionReport(bytes: body, at: offset + index * size)) }
        return reports
    }

    /// Profile-specific extension bytes after the blocks, cut to whole 32-bit words so that a
    /// rewrite reproduces them exactly.
    static func readExtensions(_ body: UnsafeRawBufferPointer, from offset: Int) -> [UInt8] {
        let words = (body.count - offset) / 4
        return words > 0 ? body.copyBytes(offset ..< offset + words * 4) : []
    }
}
