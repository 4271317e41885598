/// SR: sender report (RFC 3550 §6.4.1), PT=200.
///
/// ```
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// |                         SSRC of sender                        |
/// |              NTP timestamp, most significant word             |
/// |             NTP timestamp, least significant word             |
/// |                         RTP timestamp                         |
/// |                     sender's packet count                     |
/// |                      sender's octet count                     |
/// |                 report blocks (RC × 24 bytes) ...             |
/// |                  profile-specific extensions                  |
/// ```
public struct SenderReport: RTCPPacketCodable {
    /// The sender.
    public var ssrc: UInt32
    /// Wallclock time when this report was sent.
    public var ntpTime: NTPTime
    /// The same instant in the RTP timestamp clock.
    public var rtpTime: UInt32
    /// RTP data packets sent so far.
    public var packetCount: UInt32
    /// Payload octets sent so far.
    public var octetCount: UInt32
    /// Reception report blocks (at most 31).
    public var reports: [ReceptionReport]
    /// Profile-specific extension, whole 32-bit words.
    public var profileExtensions: [UInt8]

    public init(
        ssrc: UInt32, ntpTime: NTPTime, rtpTime: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [ReceptionReport] = [], profileExtensions: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTime = rtpTime
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.senderReport)
        guard body.count >= 24 else { throw .packetTooShort }
        ssrc = body.u32(0)
        ntpTime = NTPTime(rawValue: body.u64(4))
        rtpTime = body.u32(12)
        packetCount = body.u32(16)
        octetCount = body.u32(20)
        reports = try ReceptionReport.readBlocks(body, at: 24, count: Int(header.count))
        profileExtensions = ReceptionReport.readExtensions(body, from: 24 + reports.count * ReceptionReport.size)
    }

    public var serializedSize: Int {
        RTCPHeader.size + 24 + reports.count * ReceptionReport.size + (profileExtensions.count + 3) & ~3
    }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: UInt8(reports.count), packetType: RTCPPacketType.senderReport, size: size, into: &out)
        out.u32(ssrc)
        out.u64(ntpTime.rawValue)
        out.u32(rtpTime)
        out.u32(packetCount)
        out.u32(octetCount)
        for report in reports { report.write(into: &out) }
        out.bytes(profileExtensions)
        out.zeros(size - out.offset)
        return out.offset
    }
}
