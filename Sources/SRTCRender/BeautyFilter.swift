import RTCMedia

/// The beauty filter's levels, each 0…1 (`SRTCEngine.setBlurLevel(_:)` and the others).
struct BeautySettings: Equatable, Sendable {
    var blur: Float = 0.5
    var white: Float = 0.3
    var red: Float = 0.3
    var sharpen: Float = 0.3
    var filterName = "origin"
    var filterLevel: Float = 0.8
}

/// The beauty filter on I420 frames, in this order:
///
/// 1. **Smoothing** (luma): a local-statistics (Lee) filter. Each sample moves towards its
///    window mean m by 1 − a, with a = σ² / (σ² + ε) from the window variance σ²: flat areas with
///    small variations (skin texture, sensor noise) are smoothed, edges (large σ²) are kept.
///    ε = (24 × level)², the window is about a sixtieth of the picture's height.
/// 2. **Sharpening** (luma): unsharp masking, y + 2 × level × (y − mean₃ₓ₃).
/// 3. **Whitening, ruddiness and the colour filter**: `BeautyTables`, one lookup per sample.
///
/// Level 0 of a stage skips it. The arithmetic runs on 8-lane SIMD vectors; the scratch rows
/// and planes are kept between frames, so a steady stream allocates nothing here.
final class BeautyFilter {
    private var scratch: [Int32] = []
    private var base: [UInt8] = []
    private var tables: BeautyTables?
    private var tablesKey: BeautySettings?

    // MARK: - Internals

    /// Writes the filtered `source` (I420) into `output` (I420, same size).
    func apply(_ source: VideoPixelBuffer, into output: inout VideoPixelBuffer, settings: BeautySettings) {
        let (w, h) = (source.width, source.height)
        if scratch.count < 4 * w { scratch = [Int32](repeating: 0, count: 4 * w) }
        let table = currentTables(settings)
        let radius = max(2, h / 60)
        source.withPlane(0) { y in
            output.withMutablePlane(0) { out in
                if settings.blur > 0 {
                    smooth(y.baseAddress!, into: out.baseAddress!, width: w, height: h, radius: radius, level: settings.blur)
                } else {
                    _ = out.update(fromContentsOf: y)
                }
            }
        }
        if settings.sharpen > 0 {
            if base.count < w * h { base = [UInt8](repeating: 0, count: w * h) }
            output.withMutablePlane(0) { out in
                base.withUnsafeMutableBufferPointer { blurred in
                    scratch.withUnsafeMutableBufferPointer { columns in
                        PlaneFilter.boxMean(out.baseAddress!, into: blurred.baseAddress!, width: w, height: h, radius: 1,
                                            columns: columns.baseAddress!)
                    }
                    Self.sharpen(out.baseAddress!, base: blurred.baseAddress!, count: w * h, amount: 2 * settings.sharpen)
                }
            }
        }
        output.withMutablePlane(0) { out in
            table.y.withUnsafeBufferPointer { lut in for i in 0..<out.count { out[i] = lut[Int(out[i])] } }
        }
        for (plane, lut) in [(1, table.u), (2, table.v)] {
            source.withPlane(plane) { input in
                output.withMutablePlane(plane) { out in
                    lut.withUnsafeBufferPointer { lut in for i in 0..<out.count { out[i] = lut[Int(input[i])] } }
                }
            }
        }
    }

    // MARK: - Stages

    private func currentTables(_ settings: BeautySettings) -> BeautyTables {
        if let tables, tablesKey == settings { return tables }
        let filter = BeautyTables.filters[settings.filterName] ?? BeautyTables.ColorFilter()
        let built = BeautyTables(white: settings.white, red: settings.red, filter: filter, filterLevel: settings.filterLevel)
        tables = built
        tablesKey = settings
        return built
    }

    private func smooth(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
                        radius: Int, level: Float) {
        let epsilon = SIMD8<Float>(repeating: max(1, (24 * level) * (24 * level)))
        let side = Float(2 * radius + 1)
        let inverse = SIMD8<Float>(repeating: 1 / (side * side))
        let magic = SIMD8<Float>(repeating: 12_582_912)
        scratch.withUnsafeMutableBufferPointer { scratch in
            PlaneFilter.boxStatistics(source, width: width, height: height, radius: radius, scratch: scratch.baseAddress!) { y, sums, squares in
                let input = source + y * width, out = target + y * width
                var x = 0
                while x + 8 <= width {
                    let mean = SIMD8<Float>(UnsafeRawPointer(sums + x).loadUnaligned(as: SIMD8<Int32>.self)) * inverse
                    let meanSquare = SIMD8<Float>(UnsafeRawPointer(squares + x).loadUnaligned(as: SIMD8<Int32>.self)) * inverse
                    let variance = (meanSquare - mean * mean).replacing(with: 0, where: meanSquare .< mean * mean)
                    let keep = variance / (variance + epsilon)
                    let value = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(input + x).loadUnaligned(as: SIMD8<UInt8>.self)))
                    // A convex mix of the sample and its mean, so already within 0…255: adding
                    // 1.5 × 2²³ leaves the rounded integer in the low mantissa bits (no generic
                    // per-lane Float → Int conversion).
                    let result = mean + keep * (value - mean) + magic
                    let rounded = unsafeBitCast(result, to: SIMD8<Int32>.self) & 0xFF
                    UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: rounded), as: SIMD8<UInt8>.self)
                    x += 8
                }
                let n = Float(side * side)
                while x < width {
                    let mean = Float(sums[x]) / n
                    let variance = max(0, Float(squares[x]) / n - mean * mean)
                    let keep = variance / (variance + epsilon[0])
                    out[x] = UInt8(max(0, min(255, mean + keep * (Float(input[x]) - mean) + 0.5)))
                    x += 1
                }
            }
        }
    }

    /// y += amount × (y − base), clamped, on 8 samples at a time (16.8 fixed point).
    private static func sharpen(_ plane: UnsafeMutablePointer<UInt8>, base: UnsafePointer<UInt8>, count: Int, amount: Float) {
        let gain = Int32(amount * 256)
        let gainVector = SIMD8<Int32>(repeating: gain)
        var i = 0
        while i + 8 <= count {
            let value = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(plane + i).loadUnaligned(as: SIMD8<UInt8>.self))
            let blurred = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<UInt8>.self))
            let result = value &+ (((value &- blurred) &* gainVector &+ 128) &>> 8)
            let clamped = result.clamped(lowerBound: .zero, upperBound: SIMD8(repeating: 255))
            UnsafeMutableRawPointer(plane + i).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: clamped), as: SIMD8<UInt8>.self)
            i += 8
        }
        while i < count {
            let value = Int32(plane[i])
            plane[i] = UInt8(max(0, min(255, value + (((value - Int32(base[i])) * gain + 128) >> 8))))
            i += 1
        }
    }
}
