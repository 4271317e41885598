#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RTCNet

/// The SFU's two clocks, read without allocation: a monotonic microsecond count for every
/// interval and arrival time, and the wall clock as an NTP timestamp for sender reports
/// (RFC 3550 §4: 32.32 fixed-point seconds since 1900).
enum MediaClock {
    /// Monotonic time in microseconds (arbitrary epoch); the clock of the send queue's stamps.
    @inline(__always)
    static func now() -> Int64 { Monotonic.microseconds() }

    /// Seconds between 1900-01-01 and 1970-01-01.
    static let ntpEpochOffset: UInt64 = 2_208_988_800

    /// The wall clock as a 64-bit NTP timestamp.
    static func ntpNow() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let seconds = UInt64(spec.tv_sec) + ntpEpochOffset
        let fraction = (UInt64(spec.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The wall clock in Unix milliseconds (for event timestamps).
    static func unixMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Microseconds as NTP 32.32 fixed point (for adding intervals to an NTP timestamp).
    @inline(__always)
    static func ntpDuration(micros: Int64) -> UInt64 {
        let clamped = UInt64(max(0, micros))
        return (clamped / 1_000_000) << 32 | ((clamped % 1_000_000) << 32) / 1_000_000
    }
}
