// Cutting a rectangle out of an I420 picture: a composite's tile, checked by tests and tools.

extension VideoPixelBuffer {
    /// The rectangle `x, y, width, height` of this picture as a new I420 buffer (other formats
    /// are converted first). Origin and size are rounded down to even numbers (4:2:0 chroma).
    /// - Throws: `PixelBufferError.invalidDimensions` when the rectangle is empty or outside the picture.
    public func cropped(x: Int, y: Int, width: Int, height: Int) throws -> VideoPixelBuffer {
        let (x, y, width, height) = (x & ~1, y & ~1, width & ~1, height & ~1)
        guard x >= 0, y >= 0, width > 0, height > 0, x + width <= self.width, y + height <= self.height else {
            throw PixelBufferError.invalidDimensions(width: width, height: height)
        }
        let source = format == .i420 ? self : toI420()
        var out = try VideoPixelBuffer(format: .i420, width: width, height: height)
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let (w, h) = (out.plane(plane).stride, out.plane(plane).height)
            let stride = source.plane(plane).stride
            source.withPlane(plane) { src in
                out.withMutablePlane(plane) { dst in
                    for row in 0..<h {
                        let from = ((y >> shift) + row) * stride + (x >> shift)
                        for col in 0..<w { dst[row * w + col] = src[from + col] }
                    }
                }
            }
        }
        return out
    }
}
