import Testing
@testable import RTCMedia

@Suite struct VideoPixelBufferTests {
    @Test func nv12ConvertsToI420ByDeinterleavingChroma() throws {
        // 4×2 NV12: Y plane 1…8, then one row of interleaved chroma pairs (U, V) for the two 2×2 blocks.
        let nv12 = try VideoPixelBuffer(format: .nv12, width: 4, height: 2, data: [
            1, 2, 3, 4, 5, 6, 7, 8,   // Y
            10, 20, 30, 40,           // U0 V0 U1 V1
        ])
        let i420 = nv12.toI420()
        #expect(i420.format == .i420)
        #expect(i420.data == [1, 2, 3, 4, 5, 6, 7, 8, /* U */ 10, 30, /* V */ 20, 40])
        #expect(i420.converted(to: .nv12) == nv12)
    }

    @Test func bgraConvertsToI420WithBT601VideoRange() throws {
        // 4×2 BGRA (bytes B, G, R, A). Left 2×2 block all red; right block white over black.
        let red: [UInt8] = [0, 0, 255, 255], white: [UInt8] = [255, 255, 255, 255], black: [UInt8] = [0, 0, 0, 255]
        let bgra = try VideoPixelBuffer(format: .bgra, width: 4, height: 2,
                                        data: red + red + white + white + red + red + black + black)
        let i420 = bgra.toI420()
        // Y: red → (66·255+128)>>8+16 = 82, white → 235, black → 16.
        // U/V of red: (-38·255+128)>>8+128 = 90, (112·255+128)>>8+128 = 240.
        // Right block averages to (128,128,128): U = V = 128.
        #expect(i420.data == [82, 82, 235, 235, 82, 82, 16, 16, /* U */ 90, 128, /* V */ 240, 128])
    }

    @Test func bgraOddWidthAveragesOnlyThePixelsAvailable() throws {
        // 3×1: red, red, blue. Chroma is 2×1: the second block holds only the blue pixel.
        let bgra = try VideoPixelBuffer(format: .bgra, width: 3, height: 1,
                                        data: [0, 0, 255, 255, 0, 0, 255, 255, 255, 0, 0, 255])
        // Blue: Y = (25·255+128)>>8+16 = 41, U = (112·255+128)>>8+128 = 240, V = (-18·255+128)>>8+128 = 110.
        #expect(bgra.toI420().data == [82, 82, 41, /* U */ 90, 240, /* V */ 240, 110])
    }

    @Test func bgraOddWidthTwoRowsMixesFullAndEdgeBlocks() throws {
        // 3×2: each row red, red, blue. Block 0 is a full 2×2 of red; block 1 is a 1×2 column of blue.
        let red: [UInt8] = [0, 0, 255, 255], blue: [UInt8] = [255, 0, 0, 255]
        let bgra = try VideoPixelBuffer(format: .bgra, width: 3, height: 2, data: red + red + blue + red + red + blue)
        #expect(bgra.toI420().data == [82, 82, 41, 82, 82, 41, /* U */ 90, 240, /* V */ 240, 110])
    }

    @Test(arguments: [(0, 255, 0, 144, 54, 34), (0, 0, 0, 16, 128, 128), (255, 255, 255, 235, 128, 128)])
    func singleColourCoefficients(r: Int, g: Int, b: Int, y: Int, u: Int, v: Int) {
        #expect(Int(VideoPixelBuffer.luma(red: r, green: g, blue: b)) == y)
        let chroma = VideoPixelBuffer.chroma(red: r, green: g, blue: b)
        #expect(Int(chroma.u) == u && Int(chroma.v) == v)
    }

    @Test func i420ToBGRAInvertsGreys() throws {
        var i420 = try VideoPixelBuffer.black(width: 2, height: 2)
        i420.withMutablePlane(0) { $0[1] = 235 }
        let bgra = i420.converted(to: .bgra)
        #expect(bgra.data == [0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255])
    }

    @Test func planesArePackedWithHalfSizeChroma() throws {
        let buffer = try VideoPixelBuffer(format: .i420, width: 5, height: 3)
        #expect(buffer.plane(0) == .init(offset: 0, stride: 5, height: 3))
        #expect(buffer.plane(1) == .init(offset: 15, stride: 3, height: 2))
        #expect(buffer.plane(2) == .init(offset: 21, stride: 3, height: 2))
        #expect(buffer.data.count == 27)
        #expect(VideoPixelBuffer.byteCount(format: .nv12, width: 5, height: 3) == 27)
        #expect(VideoPixelBuffer.byteCount(format: .bgra, width: 5, height: 3) == 60)
    }

    @Test func copyingPlanesStripsRowPadding() throws {
        // 2×2 I420 whose Y rows are padded to 4 bytes and chroma rows to 3.
        let y: [UInt8] = [1, 2, 99, 99, 3, 4, 99, 99], u: [UInt8] = [5, 99, 99], v: [UInt8] = [6, 99, 99]
        let buffer = try y.withUnsafeBytes { yp in try u.withUnsafeBytes { up in try v.withUnsafeBytes { vp in
            try VideoPixelBuffer(format: .i420, width: 2, height: 2,
                                 copyingPlanes: [yp.baseAddress!, up.baseAddress!, vp.baseAddress!], strides: [4, 3, 3])
        } } }
        #expect(buffer.data == [1, 2, 3, 4, 5, 6])
    }

    @Test func rejectsBadSizes() {
        #expect(throws: PixelBufferError.invalidDimensions(width: 0, height: 2)) {
            try VideoPixelBuffer(format: .i420, width: 0, height: 2)
        }
        #expect(throws: PixelBufferError.dataSizeMismatch(expected: 6, actual: 5)) {
            try VideoPixelBuffer(format: .i420, width: 2, height: 2, data: [0, 0, 0, 0, 0])
        }
        #expect(throws: PixelBufferError.invalidDimensions(width: 20_000, height: 2)) {
            try VideoPixelBuffer(format: .bgra, width: 20_000, height: 2)
        }
    }

    @Test func videoFrameConvertsBetweenMicrosecondsAndRTPClock() throws {
        let frame = VideoFrame(buffer: try .black(width: 2, height: 2), timestampUs: 1_000_000)
        #expect(frame.rtpTimestamp == 90_000)
        let back = VideoFrame(buffer: frame.buffer, rtpTimestamp: 45_000)
        #expect(back.timestampUs == 500_000)
    }
}
