#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RTCWire

/// Where a load publisher writes each packet's send time (a 64-bit NTP timestamp of the wall
/// clock) so that subscribers, in the same process, compute the end-to-end delay.
package enum SendTimeStamp: Sendable, Equatable {
    /// In the abs-capture-time header extension with this id: the server forwards it unchanged.
    case absCaptureTime(id: UInt8)
    /// In RTP padding (RFC 3550 §5.1): eight bytes of time, then the padding count (9). For
    /// servers that rebuild the header extension block and drop what they do not know (Janus
    /// 1.1 keeps only its own extensions, but forwards the payload and padding untouched).
    case padding

    /// Bytes of padding the `padding` form adds after the payload.
    static let paddingLength = 9

    /// The current wall clock as NTP 32.32.
    @inline(__always)
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let seconds = UInt64(spec.tv_sec) + NTPTime.unixEpochOffset
        return seconds << 32 | (UInt64(spec.tv_nsec) << 32) / 1_000_000_000
    }

    /// Microseconds from NTP time `sent` to NTP time `received` (negative if the clock stepped back).
    @inline(__always)
    package static func micros(from sent: UInt64, to received: UInt64) -> Int64 {
        let delta = Int64(bitPattern: received &- sent)
        let magnitude = delta.magnitude
        // Whole seconds, then the 32-bit fraction scaled to µs (exact to the microsecond).
        let micros = Int64((magnitude >> 32) * 1_000_000 + ((magnitude & 0xFFFF_FFFF) * 1_000_000) >> 32)
        return delta < 0 ? -micros : micros
    }

    /// The send time a received packet carries, if any: the abs-capture-time element `id`
    /// (when nonzero), else a 9-byte padding stamp.
    @inline(__always)
    package static func read(_ packet: RTPPacketView, absCaptureTimeID id: UInt8) -> UInt64? {
        if id != 0, let value = packet.extensionValue(id: id), value.count >= 8 {
            return value.loadUnaligned(as: UInt64.self).bigEndian
        }
        guard packet.paddingLength == paddingLength else { return nil }
        let end = packet.bytes.count - 1
        return packet.bytes.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self).bigEndian
    }
}
