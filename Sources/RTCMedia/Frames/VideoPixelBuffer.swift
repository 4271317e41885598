// A portable, CPU-memory pixel buffer: the picture inside a `VideoFrame` on every platform.
//
// Planes are stored tightly packed in one array (no row padding), in the order the format names them,
// so a Y4M frame, a decoder copy and an encoder input share one layout and `vpx_img_wrap` can point
// libvpx straight at the bytes without another copy.

// MARK: - Types

/// An uncompressed picture in CPU memory, in one of the pixel formats cameras, decoders and encoders use.
///
/// The planes are packed back to back without row padding: a plane's stride equals its width in bytes.
/// Chroma planes of 4:2:0 formats are `(width + 1) / 2` by `(height + 1) / 2` samples.
public struct VideoPixelBuffer: Sendable, Equatable {
    /// The memory layout of the pixels.
    public enum Format: String, Sendable, CaseIterable {
        /// Planar 4:2:0: a Y plane, then a U (Cb) plane, then a V (Cr) plane. What VP8 encodes and decodes.
        case i420
        /// Semi-planar 4:2:0: a Y plane, then one plane of interleaved U, V pairs. What many cameras produce.
        case nv12
        /// Packed 8-bit blue, green, red, alpha per pixel. What screen capture and renderers use.
        case bgra
    }

    /// Where one plane lives inside `data`.
    public struct Plane: Sendable, Equatable {
        /// Byte offset of the plane's first row inside `data`.
        public var offset: Int
        /// Bytes from one row to the next; equal to the row's width in bytes since planes are packed.
        public var stride: Int
        /// Number of rows.
        public var height: Int
        /// Bytes the plane occupies.
        public var byteCount: Int { stride * height }
    }

    /// The pixel layout.
    public let format: Format
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// All planes, back to back (see `plane(_:)` for where each starts).
    public private(set) var data: [UInt8]

    // MARK: - Public API

    /// Largest width or height accepted, so sizes computed from outside headers cannot overflow.
    public static let maxDimension = 16_384

    /// Creates a buffer whose bytes are all zero.
    /// - Throws: `PixelBufferError.invalidDimensions` when a side is not in `1...maxDimension`.
    public init(format: Format, width: Int, height: Int) throws {
        try Self.checkDimensions(width: width, height: height)
        self.format = format
        self.width = width
        self.height = height
        self.data = [UInt8](repeating: 0, count: Self.byteCount(format: format, width: width, height: height))
    }

    /// Wraps packed plane bytes, taking ownership of the array without copying.
    /// - Throws: `PixelBufferError.invalidDimensions` or `.dataSizeMismatch` when `data.count` is not
    ///   exactly `byteCount(format:width:height:)`.
    public init(format: Format, width: Int, height: Int, data: [UInt8]) throws {
        try Self.checkDimensions(width: width, height: height)
        let expected = Self.byteCount(format: format, width: width, height: height)
        guard data.count == expected else {
            throw PixelBufferError.dataSizeMismatch(expected: expected, actual: data.count)
        }
        self.format = format
        self.width = width
        self.height = height
        self.data = data
    }

    /// Copies planes that may have row padding (camera buffers, decoder output) into a packed buffer.
    /// - Parameters:
    ///   - planes: base address of each plane, in the format's order (3 for I420, 2 for NV12, 1 for BGRA).
    ///   - strides: bytes between rows of each plane; each must be at least the plane's row width.
    /// - Throws: `PixelBufferError.planeCountMismatch` or `.strideTooSmall` on a layout that does not fit.
    public init(format: Format, width: Int, height: Int,
                copyingPlanes planes: [UnsafeRawPointer], strides: [Int]) throws {
        try self.init(format: format, width: width, height: height)
        let count = format.planeCount
        guard planes.count == count, strides.count == count else {
            throw PixelBufferError.planeCountMismatch(expected: count, actual: min(planes.count, strides.count))
        }
        for index in 0..<count {
            let layout = plane(index)
            guard strides[index] >= layout.stride else {
                throw PixelBufferError.strideTooSmall(plane: index, minimum: layout.stride, actual: strides[index])
            }
        }
        let layouts = (0..<count).map { plane($0) }
        data.withUnsafeMutableBytes { destination in
            for index in 0..<count {
                let layout = layouts[index]
                for row in 0..<layout.height {
                    let source = planes[index] + row * strides[index]
                    let target = destination.baseAddress! + layout.offset + row * layout.stride
                    target.copyMemory(from: source, byteCount: layout.stride)
                }
            }
        }
    }

    /// A black I420 picture in video range (Y 16, U and V 128).
    public static func black(width: Int, height: Int) throws -> VideoPixelBuffer {
        var buffer = try VideoPixelBuffer(format: .i420, width: width, height: height)
        let luma = buffer.plane(0).byteCount
        buffer.data.withUnsafeMutableBufferPointer { bytes in
            bytes[0..<luma].update(repeating: 16)
            bytes[luma...].update(repeating: 128)
        }
        return buffer
    }

    /// Width of 4:2:0 chroma planes in samples.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Height of 4:2:0 chroma planes in rows.
    public var chromaHeight: Int { (height + 1) / 2 }

    /// The layout of plane `index` (0 = Y or BGRA, 1 = U or UV, 2 = V).
    public func plane(_ index: Int) -> Plane {
        Self.planeLayout(format: format, width: width, height: height, index: index)
    }

    /// Reads plane `index` without copying.
    public func withPlane<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let layout = plane(index)
        return try data.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[layout.offset ..< layout.offset + layout.byteCount]))
        }
    }

    /// Writes plane `index` in place.
    public mutating func withMutablePlane<R>(_ index: Int,
                                             _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let layout = plane(index)
        return try data.withUnsafeMutableBufferPointer { all in
            try body(UnsafeMutableBufferPointer(rebasing: all[layout.offset ..< layout.offset + layout.byteCount]))
        }
    }

    /// Reads or writes all planes at once through the packed array.
    public mutating func withMutableData<R>(_ body: (inout [UInt8]) throws -> R) rethrows -> R {
        try body(&data)
    }

    /// Total bytes of a packed buffer with this format and size.
    public static func byteCount(format: Format, width: Int, height: Int) -> Int {
        (0..<format.planeCount).reduce(0) { $0 + planeLayout(format: format, width: width, height: height, index: $1).byteCount }
    }

    // MARK: - Internals

    static func planeLayout(format: Format, width: Int, height: Int, index: Int) -> Plane {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        let lumaBytes = width * height
        switch (format, index) {
        case (.bgra, _): return Plane(offset: 0, stride: width * 4, height: height)
        case (_, 0): return Plane(offset: 0, stride: width, height: height)
        case (.nv12, _): return Plane(offset: lumaBytes, stride: chromaWidth * 2, height: chromaHeight)
        case (.i420, 1): return Plane(offset: lumaBytes, stride: chromaWidth, height: chromaHeight)
        case (.i420, _):
            return Plane(offset: lumaBytes + chromaWidth * chromaHeight, stride: chromaWidth, height: chromaHeight)
        }
    }

    static func checkDimensions(width: Int, height: Int) throws {
        guard (1...maxDimension).contains(width), (1...maxDimension).contains(height) else {
            throw PixelBufferError.invalidDimensions(width: width, height: height)
        }
    }
}

extension VideoPixelBuffer.Format {
    /// How many planes the format stores.
    public var planeCount: Int {
        switch self {
        case .i420: 3
        case .nv12: 2
        case .bgra: 1
        }
    }
}
