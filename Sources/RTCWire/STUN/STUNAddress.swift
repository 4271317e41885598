/// An IP address and port as STUN carries it (RFC 8489 §14.1–14.2). `RTCWire` does no I/O, so this
/// is its own small type; the transport converts it to and from `SocketAddress`.
public struct STUNAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let ip: [UInt8]
    public let port: UInt16

    /// `nil` unless `ip` has 4 or 16 bytes.
    public init?(ip: [UInt8], port: UInt16) {
        guard ip.count == 4 || ip.count == 16 else { return nil }
        self.ip = ip
        self.port = port
    }

    public var isIPv4: Bool { ip.count == 4 }

    /// Family byte, port, address, each XORed with the magic cookie (and the transaction id for the
    /// last 12 bytes of an IPv6 address), RFC 8489 §14.2.
    func xorEncoded(transactionID: STUNTransactionID) -> [UInt8] {
        let mask = STUNAddress.mask(transactionID)
        var out: [UInt8] = [0, isIPv4 ? 0x01 : 0x02]
        let xport = port ^ UInt16(STUNMessage.magicCookie >> 16)
        out.append(UInt8(xport >> 8)); out.append(UInt8(xport & 0xFF))
        for (i, b) in ip.enumerated() { out.append(b ^ mask[i]) }
        return out
    }

    /// Decodes an XOR-MAPPED-ADDRESS value (or another XOR address attribute, `type`); throws on an
    /// unknown family or wrong length.
    static func xorDecoded(_ value: [UInt8], transactionID: STUNTransactionID,
                           type: UInt16 = STUNAttribute.xorMappedAddress) throws(STUNError) -> STUNAddress {
        guard value.count >= 4 else { throw .badAttributeValue(type: type) }
        let count: Int
        switch value[1] {
        case 0x01: count = 4
        case 0x02: count = 16
        default: throw .badAttributeValue(type: type)
        }
        guard value.count == 4 + count else { throw .badAttributeValue(type: type) }
        let mask = mask(transactionID)
        let port = (UInt16(value[2]) << 8 | UInt16(value[3])) ^ UInt16(STUNMessage.magicCookie >> 16)
        let ip = (0..<count).map { value[4 + $0] ^ mask[$0] }
        guard let address = STUNAddress(ip: ip, port: port) else { throw .badAttributeValue(type: type) }
        return address
    }

    /// Magic cookie followed by the transaction id: the 16-byte XOR mask.
    private static func mask(_ transactionID: STUNTransactionID) -> [UInt8] {
        STUNAttribute.bigEndianBytes(UInt64(STUNMessage.magicCookie), count: 4) + transactionID.bytes
    }

    public var description: String {
        if isIPv4 { return ip.map(String.init).joined(separator: ".") + ":\(port)" }
        var groups = [String]()
        for i in stride(from: 0, to: 16, by: 2) { groups.append(String(UInt16(ip[i]) << 8 | UInt16(ip[i + 1]), radix: 16)) }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }
}
