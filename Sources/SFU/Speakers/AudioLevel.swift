import Foundation

/// Conversions of RFC 6464 audio levels (-dBov, 0 loudest … 127 silence) to linear amplitude,
/// the 0…1 scale WebRTC statistics use for `audioLevel`.
enum AudioLevel {
    /// 10^(-dBov/20) for each of the 128 levels, so the packet path does one table read.
    static let amplitudes: [Double] = (0 ..< 128).map { $0 == 127 ? 0 : pow(10, -Double($0) / 20) }

    /// The linear amplitude of a -dBov level (values above 127 clamp to silence).
    @inline(__always)
    static func amplitude(dBov: UInt8) -> Double {
        amplitudes[Int(min(dBov, 127))]
    }

    /// The -dBov level of a linear amplitude (0 → 127).
    static func dBov(amplitude: Double) -> Double {
        guard amplitude > 0 else { return 127 }
        return min(127, max(0, -20 * log10(amplitude)))
    }
}

/// Sums one audio producer's levels between two speaker intervals (packet path: two additions).
struct AudioLevelAccumulator: Sendable {
    private(set) var sum: Double = 0
    private(set) var count = 0

    @inline(__always)
    mutating func add(dBov: UInt8) {
        sum += AudioLevel.amplitude(dBov: dBov)
        count += 1
    }

    /// The mean amplitude since the last call (0 when no packet carried a level: DTX or muted),
    /// and starts a new interval.
    mutating func takeMean() -> Double {
        defer { sum = 0; count = 0 }
        return count == 0 ? 0 : sum / Double(count)
    }
}
