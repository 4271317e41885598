/// abs-send-time (webrtc.org): the send time in seconds as 24-bit 6.18 fixed point, i.e. the
/// middle 24 bits of the NTP timestamp; it wraps every 64 seconds.
public struct AbsSendTimeExtension: Hashable, Sendable {
    /// The 24-bit wire value.
    public var rawValue: UInt32

    /// Value size in bytes.
    public static let size = 3

    /// - Precondition: `rawValue` fits 24 bits.
    public init(rawValue: UInt32) {
        precondition(rawValue <= 0xFF_FFFF, "abs-send-time is 24 bits")
        self.rawValue = rawValue
    }

    /// From a 64-bit NTP timestamp (32.32 fixed point): bits 14…37.
    public init(ntpTimestamp: UInt64) {
        self.rawValue = UInt32(truncatingIfNeeded: ntpTimestamp >> 14) & 0xFF_FFFF
    }

    /// From a time in seconds (any epoch); only the time modulo 64 s is kept.
    public init(seconds: Double) {
        guard seconds.isFinite else { self.rawValue = 0; return }
        let fixed = UInt64((seconds.magnitude * 262_144).rounded(.down).truncatingRemainder(dividingBy: 16_777_216))
        self.rawValue = UInt32(fixed)
    }

    /// Reads an element's 3-byte value.
    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard value.count == Self.size else { throw .invalidExtensionValue }
        self.rawValue = value.u24(0)
    }

    /// Reads an element's 3-byte value.
    public init(parsing value: [UInt8]) throws(RTPError) {
        self = try withRawBytes(value) { (raw) throws(RTPError) in try AbsSendTimeExtension(parsing: raw) }
    }

    /// The time in seconds within the 64-second wrap.
    public var seconds: Double { Double(rawValue) / 262_144 }

    /// The value's bytes.
    public func serialize() -> [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 16), UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }
}
