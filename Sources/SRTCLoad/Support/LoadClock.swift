import RTCNet

/// The load generator's monotonic clock, in microseconds (schedules and intervals; send times
/// that cross to subscribers use the wall clock, `SendTimeStamp`).
package enum LoadClock {
    @inline(__always)
    package static func now() -> Int64 { Int64(Monotonic.now() / 1_000) }
}
