/// A STUN message type: a 12-bit method and a 2-bit class interleaved in 14 bits (RFC 8489 §5).
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    /// The class of a message (RFC 8489 §3).
    public enum Class: UInt8, Sendable {
        case request = 0b00, indication = 0b01, successResponse = 0b10, errorResponse = 0b11
    }

    /// The method; only Binding (0x001) is used by ICE.
    public let method: UInt16
    public let messageClass: Class

    public init(method: UInt16, class messageClass: Class) {
        self.method = method & 0x0FFF
        self.messageClass = messageClass
    }

    /// Splits the 16-bit wire value: bits M11..M7 C1 M6..M4 C0 M3..M0 (RFC 8489 §5, figure 3).
    public init(rawValue: UInt16) {
        let c = UInt8((rawValue >> 4) & 1) | UInt8((rawValue >> 7) & 2)
        let m = (rawValue & 0x000F) | ((rawValue >> 1) & 0x0070) | ((rawValue >> 2) & 0x0F80)
        self.init(method: m, class: Class(rawValue: c) ?? .request)
    }

    /// The 16-bit wire value.
    public var rawValue: UInt16 {
        let c = UInt16(messageClass.rawValue)
        return (method & 0x000F) | ((c & 1) << 4) | ((method & 0x0070) << 1) | ((c & 2) << 7) | ((method & 0x0F80) << 2)
    }

    public static let bindingMethod: UInt16 = 0x001
    /// Binding request (0x0001).
    public static let bindingRequest = STUNMessageType(method: bindingMethod, class: .request)
    /// Binding indication (0x0011), used for keep-alives.
    public static let bindingIndication = STUNMessageType(method: bindingMethod, class: .indication)
    /// Binding success response (0x0101).
    public static let bindingSuccess = STUNMessageType(method: bindingMethod, class: .successResponse)
    /// Binding error response (0x0111).
    public static let bindingError = STUNMessageType(method: bindingMethod, class: .errorResponse)

    public var description: String {
        "STUN(method: 0x\(String(method, radix: 16)), \(messageClass))"
    }
}

/// The 96-bit transaction id (RFC 8489 §5), stored inline.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    public let high: UInt32
    public let low: UInt64

    public init(high: UInt32, low: UInt64) {
        self.high = high; self.low = low
    }

    /// From 12 bytes in network order; `nil` for another count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        var h: UInt32 = 0, l: UInt64 = 0
        for i in 0..<4 { h = h << 8 | UInt32(bytes[i]) }
        for i in 4..<12 { l = l << 8 | UInt64(bytes[i]) }
        self.init(high: h, low: l)
    }

    /// The 12 bytes in network order.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(12)
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: high >> UInt32(24 - 8 * i))) }
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * i))) }
        return out
    }

    public var description: String {
        String(high, radix: 16) + String(low, radix: 16)
    }
}
