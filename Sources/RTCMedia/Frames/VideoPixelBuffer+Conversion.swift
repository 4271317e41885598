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
    public static func luma(red: Int, green: Int, blue: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: ((66 * red + 129 * green + 25 * blue + 128) >> 8) + 16)
    }

    /// BT.601 video-range chroma (U, V) of one RGB colour, as used by `toI420()`.
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
        let uOffset = w * h
        let vOffset = uOffset + cw * ch
        data.withUnsafeBufferPointer { source in
            output.withMutableData { target in
                target.withUnsafeMutableBufferPointer { target in
                    for y in 0..<h {
                        for x in 0..<w {
                            let p = (y * w + x) * 4
                            target[y * w + x] = Self.luma(red: Int(source[p + 2]), green: Int(source[p + 1]),
                                                          blue: Int(source[p]))
                        }
                    }
                    for cy in 0..<ch {
                        for cx in 0..<cw {
                            var (r, g, b, n) = (0, 0, 0, 0)
                            for y in (2 * cy)..<min(2 * cy + 2, h) {
                                for x in (2 * cx)..<min(2 * cx + 2, w) {
                                    let p = (y * w + x) * 4
                                    b += Int(source[p]); g += Int(source[p + 1]); r += Int(source[p + 2]); n += 1
                                }
                            }
                            let (u, v) = Self.chroma(red: (r + n / 2) / n, green: (g + n / 2) / n, blue: (b + n / 2) / n)
                            target[uOffset + cy * cw + cx] = u
                            target[vOffset + cy * cw + cx] = v
                        }
                    }
                }
            }
        }
        return output
    }

    private func i420ToBGRA() -> VideoPixelBuffer {
        var output = emptyBuffer(.bgra)
        let (w, h, cw, ch) = (width, height, chromaWidth, chromaHeight)
        let uOffset = w * h
        let vOffset = uOffset + cw * ch
        @inline(__always) func clamp(_ value: Int) -> UInt8 { UInt8(max(0, min(255, value))) }
        data.withUnsafeBufferPointer { source in
            output.withMutableData { target in
                target.withUnsafeMutableBufferPointer { target in
                    for y in 0..<h {
                        for x in 0..<w {
                            let c = 298 * (Int(source[y * w + x]) - 16)
                            let d = Int(source[uOffset + (y / 2) * cw + x / 2]) - 128
                            let e = Int(source[vOffset + (y / 2) * cw + x / 2]) - 128
                            let p = (y * w + x) * 4
                            target[p] = clamp((c + 516 * d + 128) >> 8)
                            target[p + 1] = clamp((c - 100 * d - 208 * e + 128) >> 8)
                            target[p + 2] = clamp((c + 409 * e + 128) >> 8)
                            target[p + 3] = 255
                        }
                    }
                }
            }
        }
        return output
    }
}
