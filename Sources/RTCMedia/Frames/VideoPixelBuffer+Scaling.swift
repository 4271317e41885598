/// Box-filter downscaling of I420 pictures: the small simulcast layer (a quarter of each
/// dimension) and a small view showing a bigger stream. Each output sample is the mean of the
/// source block it covers.
extension VideoPixelBuffer {
    /// This picture (any format; converted to I420 first) at `width`×`height`.
    public func scaled(width: Int, height: Int) -> VideoPixelBuffer {
        let source = toI420()
        guard source.width != width || source.height != height,
              var output = try? VideoPixelBuffer(format: .i420, width: width, height: height) else { return source }
        for plane in 0..<3 {
            let src = source.plane(plane)
            let dst = output.plane(plane)
            let srcWidth = plane == 0 ? source.width : source.chromaWidth
            let dstWidth = plane == 0 ? width : output.chromaWidth
            source.withPlane(plane) { s in
                output.withMutablePlane(plane) { d in
                    Self.scalePlane(s, width: srcWidth, height: src.height, stride: src.stride,
                                    into: d, width: dstWidth, height: dst.height, stride: dst.stride)
                }
            }
        }
        return output
    }

    private static func scalePlane(_ src: UnsafeBufferPointer<UInt8>, width sw: Int, height sh: Int, stride ss: Int,
                                   into dst: UnsafeMutableBufferPointer<UInt8>, width dw: Int, height dh: Int, stride ds: Int) {
        guard sw > 0, sh > 0, dw > 0, dh > 0 else { return }
        for y in 0..<dh {
            let y0 = y * sh / dh, y1 = max(y0 + 1, (y + 1) * sh / dh)
            for x in 0..<dw {
                let x0 = x * sw / dw, x1 = max(x0 + 1, (x + 1) * sw / dw)
                var sum = 0
                for yy in y0..<min(y1, sh) {
                    let row = yy * ss
                    for xx in x0..<min(x1, sw) { sum += Int(src[row + xx]) }
                }
                let count = (min(y1, sh) - y0) * (min(x1, sw) - x0)
                dst[y * ds + x] = UInt8(sum / max(1, count))
            }
        }
    }
}
