import RTCCrypto

// The TURN methods and attributes a client needs (RFC 8656 §17–18), on the STUN codec.

extension STUNMessageType {
    public static let allocateMethod: UInt16 = 0x003
    public static let refreshMethod: UInt16 = 0x004
    public static let channelBindMethod: UInt16 = 0x009
}

extension STUNAttribute {
    public static let channelNumber: UInt16 = 0x000C
    public static let lifetime: UInt16 = 0x000D
    public static let xorPeerAddress: UInt16 = 0x0012
    public static let data: UInt16 = 0x0013
    public static let xorRelayedAddress: UInt16 = 0x0016
    public static let requestedTransport: UInt16 = 0x0019

    /// REQUESTED-TRANSPORT: UDP (protocol 17) relaying (RFC 8656 §18.7).
    public static let requestedTransportUDP = STUNAttribute(type: requestedTransport, value: [17, 0, 0, 0])

    /// LIFETIME in seconds (RFC 8656 §18.2); 0 in a Refresh deletes the allocation.
    public static func lifetime(seconds: UInt32) -> STUNAttribute {
        STUNAttribute(type: lifetime, value: bigEndianBytes(UInt64(seconds), count: 4))
    }

    /// CHANNEL-NUMBER: the number and two reserved bytes (RFC 8656 §18.1).
    public static func channelNumber(_ number: UInt16) -> STUNAttribute {
        STUNAttribute(type: channelNumber, value: bigEndianBytes(UInt64(number), count: 2) + [0, 0])
    }

    /// XOR-PEER-ADDRESS of `address` for the message with `transactionID` (RFC 8656 §18.3).
    public static func xorPeerAddress(_ address: STUNAddress, transactionID: STUNTransactionID) -> STUNAttribute {
        STUNAttribute(type: xorPeerAddress, value: address.xorEncoded(transactionID: transactionID))
    }

    /// REALM or NONCE text (RFC 8489 §14.9, §14.10).
    public static func text(_ type: UInt16, _ value: String) -> STUNAttribute {
        STUNAttribute(type: type, value: Array(value.utf8))
    }
}

extension STUNMessage {
    /// An XOR address attribute (`xorRelayedAddress`, `xorPeerAddress`, …) decoded with this
    /// message's transaction id; `nil` when absent.
    public func xorAddress(_ type: UInt16) throws(STUNError) -> STUNAddress? {
        guard let v = attribute(type)?.value else { return nil }
        return try STUNAddress.xorDecoded(v, transactionID: transactionID, type: type)
    }

    /// LIFETIME in seconds, when present and 4 bytes long.
    public var lifetimeSeconds: UInt32? {
        guard let v = attribute(STUNAttribute.lifetime)?.value, v.count == 4 else { return nil }
        return v.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// REALM or NONCE as text.
    public func text(_ type: UInt16) -> String? {
        attribute(type).map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// The long-term credential key: MD5(username ":" realm ":" password) (RFC 8489 §9.2.2,
    /// with the password as given: our TURN passwords are coturn REST credentials, plain ASCII).
    public static func longTermKey(username: String, realm: String, password: String) -> [UInt8] {
        Digest.md5(Array("\(username):\(realm):\(password)".utf8))
    }
}
