/// A 64-bit NTP timestamp, 32.32 fixed-point seconds since 1900 (RFC 3550 §4), as carried
/// in sender reports.
public struct NTPTime: Hashable, Sendable, Comparable {
    /// The wire value.
    public var rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Seconds between 1900-01-01 and 1970-01-01.
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    /// From seconds since the Unix epoch.
    public init(unixSeconds: Double) {
        guard unixSeconds.isFinite, unixSeconds > -Double(Self.unixEpochOffset) else { self.rawValue = 0; return }
        let seconds = unixSeconds + Double(Self.unixEpochOffset)
        let whole = seconds.rounded(.down)
        let fraction = (seconds - whole) * 4_294_967_296
        self.rawValue = UInt64(whole.truncatingRemainder(dividingBy: 4_294_967_296)) << 32 | UInt64(fraction)
    }

    /// Seconds since the Unix epoch.
    public var unixSeconds: Double {
        Double(rawValue >> 32) - Double(Self.unixEpochOffset) + Double(rawValue & 0xFFFF_FFFF) / 4_294_967_296
    }

    /// The middle 32 bits, the form LSR and DLSR use (RFC 3550 §6.4.1).
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    public static func < (a: NTPTime, b: NTPTime) -> Bool { a.rawValue < b.rawValue }
}
