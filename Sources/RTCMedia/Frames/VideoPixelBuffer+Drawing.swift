// Drawing a picture into a window's pixel memory: scaling and YUV → RGB in one pass, with the
// BT.601 video-range coefficients of `toI420()` inverted (the same math as `converted(to: .bgra)`).

extension VideoPixelBuffer {
    // MARK: - Public API

    /// Draws this picture scaled to `width`×`height` (nearest sample) as 32-bit B, G, R, 255
    /// pixels (X11's 24-bit TrueColor layout on little-endian machines) into `target`, whose rows
    /// are `stride` bytes apart. Non-I420 pictures are converted to I420 first. `mirrored` draws
    /// the picture flipped left to right (a front camera's preview, like a mirror).
    /// - Precondition: `target` holds `height` rows of `stride ≥ 4 × width` bytes.
    public func drawBGRA(into target: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, mirrored: Bool = false) {
        precondition(width >= 0 && height >= 0 && stride >= width * 4, "drawing target too small")
        guard width > 0, height > 0 else { return }
        let source = toI420()
        let (sw, sh, cw) = (source.width, source.height, source.chromaWidth)
        // 16.16 fixed-point steps from target to source coordinates.
        let stepX = (sw << 16) / width, stepY = (sh << 16) / height
        @inline(__always) func clamp(_ value: Int) -> UInt8 { UInt8(max(0, min(255, value))) }
        source.data.withUnsafeBufferPointer { planes in
            let luma = planes.baseAddress!, u = luma + sw * sh, v = u + cw * source.chromaHeight
            for y in 0..<height {
                let sy = (y * stepY) >> 16
                let lumaRow = luma + sy * sw, uRow = u + (sy >> 1) * cw, vRow = v + (sy >> 1) * cw
                let out = (target + y * stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    let sx = ((mirrored ? width - 1 - x : x) * stepX) >> 16
                    let c = 298 * (Int(lumaRow[sx]) - 16)
                    let d = Int(uRow[sx >> 1]) - 128
                    let e = Int(vRow[sx >> 1]) - 128
                    out[4 * x] = clamp((c + 516 * d + 128) >> 8)
                    out[4 * x + 1] = clamp((c - 100 * d - 208 * e + 128) >> 8)
                    out[4 * x + 2] = clamp((c + 409 * e + 128) >> 8)
                    out[4 * x + 3] = 255
                }
            }
        }
    }
}
