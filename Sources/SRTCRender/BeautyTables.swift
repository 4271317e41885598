import Foundation

/// The pointwise part of the beauty filter as three 256-entry tables (Y, U, V): whitening and
/// ruddiness, then the named colour filter blended in by its level. Built once per settings
/// change and applied with one lookup per sample.
///
/// - Whitening lifts luma along a logarithmic curve, t' = log(1 + (β − 1)t) / log β with
///   t the luma in 0…1 of video range and β = 1 + 9 × level: dark and middle tones brighten most,
///   black and white stay put, so the mean luminance rises with the level.
/// - Ruddiness adds red: V (Cr) up by 14 × level, U (Cb) down by 4 × level.
/// - A colour filter maps (Y, U, V) to a styled value; `level` blends between the input (0) and
///   the filter's full effect (1).
struct BeautyTables: Equatable {
    /// What a named colour filter does: a luma curve (gain and lift around video range) and a
    /// chroma transform (saturation, then a tint on U and V).
    struct ColorFilter: Equatable {
        var gain: Double = 1
        var lift: Double = 0
        var saturation: Double = 1
        var tintU: Double = 0
        var tintV: Double = 0
    }

    /// The named filters `setFilterName(_:)` accepts; `origin` leaves the picture as it is.
    static let filters: [String: ColorFilter] = [
        "origin": ColorFilter(),
        "warm": ColorFilter(tintU: -10, tintV: 12),
        "cool": ColorFilter(tintU: 14, tintV: -8),
        "mono": ColorFilter(saturation: 0),
        "sepia": ColorFilter(gain: 0.92, lift: 0.04, saturation: 0, tintU: -14, tintV: 12),
        "vivid": ColorFilter(gain: 1.08, lift: -0.04, saturation: 1.4),
        "fade": ColorFilter(gain: 0.82, lift: 0.1, saturation: 0.7),
    ]

    let y: [UInt8]
    let u: [UInt8]
    let v: [UInt8]

    init(white: Float, red: Float, filter: ColorFilter, filterLevel: Float) {
        let whiteLevel = Double(white), redLevel = Double(red), mix = Double(filterLevel)
        let beta = 1 + 9 * whiteLevel
        func whiten(_ t: Double) -> Double { whiteLevel <= 0 ? t : log(1 + (beta - 1) * t) / log(beta) }
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = (0..<256).map { value in
            // Samples outside video range (full-range sources) are left to the filter alone.
            let raw = (Double(value) - 16) / 219
            let t = (0...1).contains(raw) ? whiten(raw) : raw
            let filtered = filter.gain * t + filter.lift
            let out = t + mix * (filtered - t)
            return clamp(16 + 219 * out)
        }
        func chroma(_ value: Int, shift: Double, tint: Double) -> UInt8 {
            let c = Double(value) + shift
            let filtered = 128 + filter.saturation * (c - 128) + tint
            return clamp(c + mix * (filtered - c))
        }
        u = (0..<256).map { chroma($0, shift: -4 * redLevel, tint: filter.tintU) }
        v = (0..<256).map { chroma($0, shift: 14 * redLevel, tint: filter.tintV) }
    }
}
