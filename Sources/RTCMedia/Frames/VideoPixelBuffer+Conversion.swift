// Pixel format conversions. I420 is the pivot: every format converts to it (encoder input) and from it
// (renderers). Colour math is ITU-R BT.601 in video range (Y 16...235, chroma 16...240) with 8-bit
// fixed-point coefficients, the convention WebRTC stacks use for camera and screen content.

extension VideoPixelBuffer {
    // MARK: - Public API

    /// Returns this picture as I420 (the encoder's input). An I420 buffer is returned as is, without copying.
    ///
    /// NV12 chroma is de-interleaved. BGRA is converted with BT.601 video-range coefficients; each chroma
    /// sample is computed from the rounded average colour of its 2×2 block (fewer pixels at odd edges).
    public func toI420() -> VideoPixelBuffer {
        switch format {
        case .i420: return self
        case .nv12: return nv12ToI420()
        case .bgra: return bgraToI420()
        }
    }

    /// Returns this picture in `target` format, going through I420 when neither side is I420.
    public func converted(to target: Format) -> VideoPixelBuffer {
        if target == format { return self }
        let i420 = toI420()
        switch target {
        case .i420: return i420
        case .nv12: return i420.i420ToNV12()
        case .bgra: return i420.i420ToBGRA()
        }
    }

    /// BT.601 video-range luma of one RGB colour, as used by `toI420()`.
    @inline(__always)
    public static func luma(red: Int, green: Int, blue: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: ((66 * red + 129 * green + 25 * blue + 128) >> 8) + 16)
    }

    /// BT.601 video-range chroma (U, V) of one RGB colour, as used by `toI420()`.
    @inline(__always)
    public static func chroma(red: Int, green: Int, blue: Int) -> (u: UInt8, v: UInt8) {
        let u = ((-38 * red - 74 * green + 112 * blue + 128) >> 8) + 128
        let v = ((112 * red - 94 * green - 18 * blue + 128) >> 8) + 128
        return (UInt8(truncatingIfNeeded: u), UInt8(truncatingIfNeeded: v))
    }

    // MARK: - Internals

    private func emptyBuffer(_ format: Format) -> VideoPixelBuffer {
        // Dimensions come from an existing valid buffer, so this cannot fail.
        try! VideoPixelBuffer(format: format, width: width, height: height)
    }

    private func nv12ToI420() -> VideoPixelBuffer {
        var output = emptyBuffer(.i420)
        let lumaBytes = plane(0).byteCount
        let chromaCount = chromaWidth * chromaHeight
        data.withUnsafeBufferPointer { source in
            output.withMutableData { target in
                target.withUnsafeMutableBufferPointer { target in
                    _ = UnsafeMutableBufferPointer(rebasing: target[0..<lumaBytes])
                        .update(fromContentsOf: source[0..<lumaBytes])
                    for index in 0..<chromaCount {
                        target[lumaBytes + index] = source[lumaBytes + 2 * index]
                        target[lumaBytes + chromaCount + index] = source[lumaBytes + 2 * index + 1]
                    }
                }
            }
        }
        return output
    }

    private func i420ToNV12() -> VideoPixelBuffer {
        var output = emptyBuffer(.nv12)
        let lumaBytes = plane(0).byteCount
        let chromaCount = chromaWidth * chromaHeight
        data.withUnsafeBufferPointer { source in
            output.withMutableData { target in
                target.withUnsafeMutableBufferPointer { target in
                    _ = UnsafeMutableBufferPointer(rebasing: target[0..<lumaBytes])
                        .update(fromContentsOf: source[0..<lumaBytes])
                    for index in 0..<chromaCount {
                        target[lumaBytes + 2 * index] = source[lumaBytes + index]
                        target[lumaBytes + 2 * index + 1] = source[lumaBytes + chromaCount + index]
                    }
                }
            }
        }
        return output
    }

    private func bgraToI420() -> VideoPixelBuffer {
        var output = emptyBuffer(.i420)
        let (w, h, cw, ch) = (width, height, chromaWidth, chromaHeight)
        // One pass over 2×2 blocks computes the four luma samples and the block's chroma together; raw
        // pointers keep the inner loop free of bounds checks (all indices stay inside the planes by construction).
        data.withUnsafeBufferPointer { sourceBuffer in
            output.withMutableData { target in
                target.withUnsafeMutableBufferPointer { targetBuffer in
                    let source = sourceBuffer.baseAddress!
                    let luma = targetBuffer.baseAddress!
                    let uPlane = luma + w * h
                    let vPlane = uPlane + cw * ch
                    for cy in 0..<ch {
                        let rows = min(2, h - 2 * cy)
                        // Full 2×2 blocks: fixed shape, so the sums divide by 4 with a shift.
                        if rows == 2 {
                            let top = source + (2 * cy * w) * 4, bottom = top + w * 4
                            let lumaTop = luma + 2 * cy * w, lumaBottom = lumaTop + w
                            for cx in 0..<(w / 2) {
                                let p0 = top + cx * 8, p1 = bottom + cx * 8
                                let (b0, g0, r0) = (Int(p0[0]), Int(p0[1]), Int(p0[2]))
                                let (b1, g1, r1) = (Int(p0[4]), Int(p0[5]), Int(p0[6]))
                                let (b2, g2, r2) = (Int(p1[0]), Int(p1[1]), Int(p1[2]))
                                let (b3, g3, r3) = (Int(p1[4]), Int(p1[5]), Int(p1[6]))
                                lumaTop[2 * cx] = Self.luma(red: r0, green: g0, blue: b0)
                                lumaTop[2 * cx + 1] = Self.luma(red: r1, green: g1, blue: b1)
                                lumaBottom[2 * cx] = Self.luma(red: r2, green: g2, blue: b2)
                                lumaBottom[2 * cx + 1] = Self.luma(red: r3, green: g3, blue: b3)
                                let (u, v) = Self.chroma(red: (r0 + r1 + r2 + r3 + 2) >> 2, green: (g0 + g1 + g2 + g3 + 2) >> 2,
                                                         blue: (b0 + b1 + b2 + b3 + 2) >> 2)
                                uPlane[cy * cw + cx] = u
                                vPlane[cy * cw + cx] = v
                            }
                        }
                        for cx in (rows == 2 ? w / 2 : 0)..<cw {
                            let columns = min(2, w - 2 * cx)
                            var (r, g, b) = (0, 0, 0)
                            for dy in 0..<rows {
                                let y = 2 * cy + dy
                                for dx in 0..<columns {
                                    let x = 2 * cx + dx
                                    let pixel = source + (y * w + x) * 4
                                    let (pb, pg, pr) = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2]))
                                    luma[y * w + x] = Self.luma(red: pr, green: pg, blue: pb)
                                    b += pb; g += pg; r += pr
                                }
                            }
                            let n = rows * columns
                            let (u, v) = Self.chroma(red: (r + n / 2) / n, green: (g + n / 2) / n, blue: (b + n / 2) / n)
                            uPlane[cy * cw + cx] = u
                            vPlane[cy * cw + cx] = v
                        }
                    }
                }
            }
        }
        return output
    }

    private func i420ToBGRA() -> VideoPixelBuffer {
        var output = emptyBuffer(.bgra)
        output.withMutableData { target in
            target.withUnsafeMutableBytes { drawBGRA(into: $0.baseAddress!, width: width, height: height, stride: width * 4) }
        }
        return output
    }
}
