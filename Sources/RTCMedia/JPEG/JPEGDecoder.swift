#if canImport(CTurboJPEG)
import CTurboJPEG

// MARK: - Types

/// Why a JPEG (an MJPEG camera frame) could not be decoded.
public enum JPEGError: Error, Sendable, Equatable {
    /// libjpeg-turbo could not create its decompressor.
    case decoderUnavailable
    /// The bytes are not a JPEG libjpeg-turbo can read (the library's message).
    case invalidData(String)
    /// The header's size is zero or above `VideoPixelBuffer.maxDimension`.
    case invalidDimensions(width: Int, height: Int)
}

/// Decodes baseline JPEG pictures (the frames of MJPEG cameras) to I420 with libjpeg-turbo.
///
/// JPEG stores full-range YCbCr (JFIF); the SDK's frames are BT.601 video range (Y 16…235, chroma
/// 16…240), so the planes are rescaled on the way. 4:2:0 pictures decode straight into the output;
/// 4:2:2 (what most USB cameras send) and 4:4:4 have their chroma averaged down; greyscale gets
/// neutral chroma; any other subsampling goes through BGRX. Scratch planes are kept between calls.
/// A frame libjpeg-turbo refuses leaves its decompressor unusable (libjpeg's error exit abandons it
/// mid-stream: the next good frame failed with "Bogus Huffman table definition"), so the handle
/// is replaced after every refusal. Not thread-safe: one decoder per capture thread.
public final class JPEGDecoder {
    private var handle: tjhandle
    private var scratch: [UInt8] = []
    /// Full range → video range, for luma and for chroma.
    private static let lumaTable: [UInt8] = (0..<256).map { UInt8(16 + ($0 * 219 + 127) / 255) }
    private static let chromaTable: [UInt8] = (0..<256).map { UInt8(16 + ($0 * 224 + 127) / 255) }

    // MARK: - Public API

    /// - Throws: `JPEGError.decoderUnavailable` when libjpeg-turbo cannot start.
    public init() throws {
        guard let handle = tjInitDecompress() else { throw JPEGError.decoderUnavailable }
        self.handle = handle
    }

    deinit {
        tjDestroy(handle)
    }

    /// Decodes one JPEG picture.
    /// - Throws: `JPEGError.invalidData` for bytes libjpeg-turbo rejects (warnings about
    ///   recoverable corruption, common in camera streams, are accepted), `.invalidDimensions`.
    public func decode(_ jpeg: UnsafeRawBufferPointer) throws -> VideoPixelBuffer {
        guard let base = jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), jpeg.count > 0 else {
            throw JPEGError.invalidData("empty input")
        }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(jpeg.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw refused()
        }
        let (w, h) = (Int(width), Int(height))
        guard (1...VideoPixelBuffer.maxDimension).contains(w), (1...VideoPixelBuffer.maxDimension).contains(h) else {
            throw JPEGError.invalidDimensions(width: w, height: h)
        }
        var output = try VideoPixelBuffer(format: .i420, width: w, height: h)
        let (cw, ch) = (output.chromaWidth, output.chromaHeight)
        switch Int(subsampling) {
        case Int(TJSAMP_420.rawValue):
            try output.withMutableData { data in
                try data.withUnsafeMutableBufferPointer { planes in
                    let y = planes.baseAddress!, u = y + w * h, v = u + cw * ch
                    try decodePlanes(base, jpeg.count, [y, u, v], strides: [w, cw, cw], width: w, height: h)
                }
            }
        case Int(TJSAMP_422.rawValue), Int(TJSAMP_444.rawValue):
            // Chroma planes at their stored size in scratch, then averaged down to 4:2:0.
            let sourceWidth = subsampling == Int32(TJSAMP_444.rawValue) ? w : cw
            reserveScratch(2 * sourceWidth * h)
            try output.withMutableData { data in
                try data.withUnsafeMutableBufferPointer { planes in
                    try scratch.withUnsafeMutableBufferPointer { temp in
                        let y = planes.baseAddress!, u = temp.baseAddress!, v = u + sourceWidth * h
                        try decodePlanes(base, jpeg.count, [y, u, v], strides: [w, sourceWidth, sourceWidth], width: w, height: h)
                        let target = y + w * h
                        Self.average(u, width: sourceWidth, height: h, into: target, width: cw, height: ch)
                        Self.average(v, width: sourceWidth, height: h, into: target + cw * ch, width: cw, height: ch)
                    }
                }
            }
        case Int(TJSAMP_GRAY.rawValue):
            try output.withMutableData { data in
                try data.withUnsafeMutableBufferPointer { planes in
                    try decodePlanes(base, jpeg.count, [planes.baseAddress!], strides: [w], width: w, height: h)
                    planes[(w * h)...].update(repeating: 128)   // neutral chroma (128 in either range)
                }
            }
        default:
            reserveScratch(w * h * 4)
            let status = scratch.withUnsafeMutableBufferPointer { rgb in
                tjDecompress2(handle, base, UInt(jpeg.count), rgb.baseAddress, width, Int32(w * 4), height, Int32(TJPF_BGRX.rawValue), 0)
            }
            try check(status)
            let bgra = try VideoPixelBuffer(format: .bgra, width: w, height: h, data: Array(scratch[0..<(w * h * 4)]))
            return bgra.toI420()   // already video range
        }
        output.withMutableData { data in
            data.withUnsafeMutableBufferPointer { planes in
                for i in 0..<(w * h) { planes[i] = Self.lumaTable[Int(planes[i])] }
                for i in (w * h)..<planes.count { planes[i] = Self.chromaTable[Int(planes[i])] }
            }
        }
        return output
    }

    // MARK: - Internals

    private var message: String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }

    /// A warning (recoverable corruption) still produced a picture; an error did not.
    private func check(_ status: Int32) throws {
        guard status != 0, tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) else { return }
        throw refused()
    }

    /// The error for the frame just refused, with a fresh decompressor for the next frame (the
    /// old one is destroyed; if none can be made, the old one stays and the next frame reports it).
    private func refused() -> JPEGError {
        let error = JPEGError.invalidData(message)
        if let fresh = tjInitDecompress() {
            tjDestroy(handle)
            handle = fresh
        }
        return error
    }

    private func decodePlanes(_ jpeg: UnsafePointer<UInt8>, _ size: Int, _ planes: [UnsafeMutablePointer<UInt8>],
                              strides: [Int], width: Int, height: Int) throws {
        var pointers: [UnsafeMutablePointer<UInt8>?] = planes
        var strideValues = strides.map { Int32($0) }
        let status = pointers.withUnsafeMutableBufferPointer { p in
            strideValues.withUnsafeMutableBufferPointer { s in
                tjDecompressToYUVPlanes(handle, jpeg, UInt(size), p.baseAddress, Int32(width), s.baseAddress, Int32(height), 0)
            }
        }
        try check(status)
    }

    private func reserveScratch(_ count: Int) {
        if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
    }

    /// Box-averages a chroma plane down to `width`×`height` (2:1 vertically, and 2:1 horizontally
    /// when the source is full width), rounding; edge blocks average what they cover.
    private static func average(_ source: UnsafeMutablePointer<UInt8>, width sw: Int, height sh: Int,
                                into target: UnsafeMutablePointer<UInt8>, width tw: Int, height th: Int) {
        let xs = sw > tw ? 2 : 1
        for ty in 0..<th {
            let rows = min(2, sh - 2 * ty)
            for tx in 0..<tw {
                let columns = min(xs, sw - xs * tx)
                var sum = 0
                for dy in 0..<rows {
                    for dx in 0..<columns { sum += Int(source[(2 * ty + dy) * sw + xs * tx + dx]) }
                }
                let n = rows * columns
                target[ty * tw + tx] = UInt8((sum + n / 2) / n)
            }
        }
    }
}
#endif
