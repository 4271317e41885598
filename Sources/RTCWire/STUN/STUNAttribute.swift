/// One STUN attribute as it appears on the wire: a 16-bit type and its value (without padding).
/// Unknown attributes are kept as they are, so a parsed message re-encodes unchanged.
public struct STUNAttribute: Hashable, Sendable {
    public let type: UInt16
    public let value: [UInt8]

    public init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    /// `true` for types 0x0000–0x7FFF, which an agent must understand (RFC 8489 §14).
    public var isComprehensionRequired: Bool { type < 0x8000 }

    // MARK: - Attribute types (RFC 8489 §18.3, RFC 8445 §16.1)

    public static let mappedAddress: UInt16 = 0x0001
    public static let username: UInt16 = 0x0006
    public static let messageIntegrity: UInt16 = 0x0008
    public static let errorCode: UInt16 = 0x0009
    public static let unknownAttributes: UInt16 = 0x000A
    public static let realm: UInt16 = 0x0014
    public static let nonce: UInt16 = 0x0015
    public static let messageIntegritySHA256: UInt16 = 0x001C
    public static let xorMappedAddress: UInt16 = 0x0020
    public static let priority: UInt16 = 0x0024
    public static let useCandidate: UInt16 = 0x0025
    public static let software: UInt16 = 0x8022
    public static let fingerprint: UInt16 = 0x8028
    public static let iceControlled: UInt16 = 0x8029
    public static let iceControlling: UInt16 = 0x802A

    // MARK: - Typed constructors

    /// USERNAME: for ICE, `remoteUfrag:localUfrag` of the sender's view (RFC 8445 §7.2.2).
    public static func username(_ name: String) -> STUNAttribute {
        STUNAttribute(type: username, value: Array(name.utf8))
    }

    /// PRIORITY: the priority of the peer-reflexive candidate the check would create (RFC 8445 §7.1.1).
    public static func priority(_ value: UInt32) -> STUNAttribute {
        STUNAttribute(type: priority, value: bigEndianBytes(UInt64(value), count: 4))
    }

    /// USE-CANDIDATE: the controlling agent nominates this pair (RFC 8445 §7.1.2). No value.
    public static let useCandidateFlag = STUNAttribute(type: useCandidate, value: [])

    /// ICE-CONTROLLING with the agent's tie-breaker (RFC 8445 §7.1.3).
    public static func iceControlling(tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: iceControlling, value: bigEndianBytes(tieBreaker, count: 8))
    }

    /// ICE-CONTROLLED with the agent's tie-breaker (RFC 8445 §7.1.3).
    public static func iceControlled(tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: iceControlled, value: bigEndianBytes(tieBreaker, count: 8))
    }

    /// SOFTWARE: a description of the agent (RFC 8489 §14.14).
    public static func software(_ text: String) -> STUNAttribute {
        STUNAttribute(type: software, value: Array(text.utf8))
    }

    /// ERROR-CODE: class and number in two bytes after two reserved ones, then a UTF-8 reason (RFC 8489 §14.8).
    public static func errorCode(_ code: Int, reason: String) -> STUNAttribute {
        let clamped = min(max(code, 300), 699)
        let value: [UInt8] = [0, 0, UInt8(clamped / 100), UInt8(clamped % 100)] + Array(reason.utf8)
        return STUNAttribute(type: errorCode, value: value)
    }

    /// XOR-MAPPED-ADDRESS of `address` for the message with `transactionID` (RFC 8489 §14.2).
    public static func xorMappedAddress(_ address: STUNAddress, transactionID: STUNTransactionID) -> STUNAttribute {
        STUNAttribute(type: xorMappedAddress, value: address.xorEncoded(transactionID: transactionID))
    }

    static func bigEndianBytes(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (count - 1 - $0))) }
    }
}
