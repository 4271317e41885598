/// RR: receiver report (RFC 3550 §6.4.2), PT=201.
///
/// ```
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// |                     SSRC of packet sender                     |
/// |                 report blocks (RC × 24 bytes) ...             |
/// |                  profile-specific extensions                  |
/// ```
public struct ReceiverReport: RTCPPacketCodable {
    /// The packet's sender.
    public var ssrc: UInt32
    /// Reception report blocks (at most 31); may be empty.
    public var reports: [ReceptionReport]
    /// Profile-specific extension, whole 32-bit words.
    public var profileExtensions: [UInt8]

    public init(ssrc: UInt32, reports: [ReceptionReport] = [], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.receiverReport)
        guard body.count >= 4 else { throw .packetTooShort }
        ssrc = body.u32(0)
        reports = try ReceptionReport.readBlocks(body, at: 4, count: Int(header.count))
        profileExtensions = ReceptionReport.readExtensions(body, from: 4 + reports.count * ReceptionReport.size)
    }

    public var serializedSize: Int {
        RTCPHeader.size + 4 + reports.count * ReceptionReport.size + (profileExtensions.count + 3) & ~3
    }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: UInt8(reports.count), packetType: RTCPPacketType.receiverReport, size: size, into: &out)
        out.u32(ssrc)
        for report in reports { report.write(into: &out) }
        out.bytes(profileExtensions)
        out.zeros(size - out.offset)
        return out.offset
    }
}
