// The packed and strided layouts cameras hand out (V4L2 on Linux), converted to I420. The bytes
// come from a driver, so every size is checked before a pixel is read.

extension VideoPixelBuffer {
    // MARK: - Public API

    /// Converts a YUYV (YUY2, V4L2 `YUYV`) picture to I420.
    ///
    /// YUYV is 4:2:2: each pair of pixels is stored as `Y0 U Y1 V`, so chroma is already halved
    /// horizontally; I420 halves it vertically too by averaging the two rows of each pair
    /// (rounded). An odd last row keeps its own chroma.
    /// - Parameters:
    ///   - bytes: the picture, `height` rows of `stride` bytes.
    ///   - stride: bytes per row (V4L2 `bytesperline`); at least `4 × ⌈width / 2⌉`.
    /// - Throws: `PixelBufferError.invalidDimensions`, `.strideTooSmall` or `.dataSizeMismatch`
    ///   when the bytes cannot hold the picture.
    public static func i420(fromYUYV bytes: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) throws -> VideoPixelBuffer {
        try checkDimensions(width: width, height: height)
        let pairs = (width + 1) / 2
        guard stride >= pairs * 4 else { throw PixelBufferError.strideTooSmall(plane: 0, minimum: pairs * 4, actual: stride) }
        let needed = stride * (height - 1) + pairs * 4
        guard bytes.count >= needed else { throw PixelBufferError.dataSizeMismatch(expected: needed, actual: bytes.count) }
        var output = try VideoPixelBuffer(format: .i420, width: width, height: height)
        let (cw, ch) = (output.chromaWidth, output.chromaHeight)
        let source = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        output.withMutableData { $0.withUnsafeMutableBufferPointer { target in
            let luma = target.baseAddress!, uPlane = luma + width * height, vPlane = uPlane + cw * ch
            for y in 0..<height {
                let row = source + y * stride, out = luma + y * width
                for x in 0..<width { out[x] = row[2 * x] }   // Y0 U Y1 V: pixel x's luma at byte 2x
            }
            for cy in 0..<ch {
                let top = source + 2 * cy * stride
                let bottom = 2 * cy + 1 < height ? top + stride : top
                for cx in 0..<cw {
                    uPlane[cy * cw + cx] = UInt8((Int(top[4 * cx + 1]) + Int(bottom[4 * cx + 1]) + 1) >> 1)
                    vPlane[cy * cw + cx] = UInt8((Int(top[4 * cx + 3]) + Int(bottom[4 * cx + 3]) + 1) >> 1)
                }
            }
        } }
        return output
    }

    /// Converts an NV12 picture whose rows may be padded (V4L2 `NV12`: the Y plane, then the
    /// interleaved chroma plane, both `stride` bytes per row) to I420.
    /// - Throws: `PixelBufferError` when the bytes cannot hold the picture.
    public static func i420(fromNV12 bytes: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) throws -> VideoPixelBuffer {
        try checkDimensions(width: width, height: height)
        let chromaRow = (width + 1) / 2 * 2, chromaRows = (height + 1) / 2
        guard stride >= chromaRow else { throw PixelBufferError.strideTooSmall(plane: 0, minimum: chromaRow, actual: stride) }
        let needed = stride * height + stride * (chromaRows - 1) + chromaRow
        guard bytes.count >= needed else { throw PixelBufferError.dataSizeMismatch(expected: needed, actual: bytes.count) }
        let base = bytes.baseAddress!
        let nv12 = try VideoPixelBuffer(format: .nv12, width: width, height: height,
                                        copyingPlanes: [base, base + stride * height], strides: [stride, stride])
        return nv12.toI420()
    }
}
