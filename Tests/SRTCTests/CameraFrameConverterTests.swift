import Foundation
import RTCMedia
@testable import SRTCCore
@testable import SRTCDevices
import TestRandom
import Testing

/// The camera formats V4L2 delivers, converted to I420, on fixtures made by FFmpeg and
/// libjpeg-turbo from one reference picture (Fixtures/camera/make-fixtures.sh): FFmpeg's
/// `testsrc2` at 64x48, so colour, edges and text all have to survive the conversion.
struct CameraFrameConverterTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/camera")
    static let width = 64, height = 48

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static var reference: VideoPixelBuffer {
        get throws { try VideoPixelBuffer(format: .i420, width: width, height: height, data: try fixture("reference-64x48.i420")) }
    }

    /// Mean and largest absolute difference of one plane of two I420 pictures of the same size.
    static func difference(_ a: VideoPixelBuffer, _ b: VideoPixelBuffer, plane: Int) -> (mean: Double, max: Int) {
        a.withPlane(plane) { x in
            b.withPlane(plane) { y in
                let diffs = zip(x, y).map { abs(Int($0) - Int($1)) }
                return (Double(diffs.reduce(0, +)) / Double(max(1, diffs.count)), diffs.max() ?? 0)
            }
        }
    }

    func convert(_ bytes: [UInt8], _ format: CameraPixelFormat, stride: Int) throws -> VideoPixelBuffer {
        let converter = CameraFrameConverter()
        return try bytes.withUnsafeBytes { try converter.convert($0, format: format, width: Self.width, height: Self.height, stride: stride) }
    }

    /// What a conversion must return, derived from the input fixture by Fixtures/camera/make-expected.py.
    static func expected(_ name: String) throws -> VideoPixelBuffer {
        try VideoPixelBuffer(format: .i420, width: width, height: height, data: try fixture("\(name).expected.i420"))
    }

    @Test func yuyvWithPaddedRowsKeepsLumaAndAveragesChromaRows() throws {
        let picture = try convert(try Self.fixture("yuyv-64x48-stride160.raw"), .yuyv, stride: 160)
        #expect(picture.format == .i420 && picture.width == Self.width && picture.height == Self.height)
        #expect(Self.difference(picture, try Self.reference, plane: 0).max == 0)   // luma is stored as is
        // Chroma: the rounded mean of each pair of rows, exactly.
        let expected = try Self.expected("yuyv-64x48")
        for plane in 0...2 { #expect(Self.difference(picture, expected, plane: plane).max == 0, "plane \(plane)") }
    }

    @Test func nv12WithPaddedRowsIsExact() throws {
        let picture = try convert(try Self.fixture("nv12-64x48-stride80.raw"), .nv12, stride: 80)
        let reference = try Self.reference
        for plane in 0...2 { #expect(Self.difference(picture, reference, plane: plane).max == 0, "plane \(plane)") }
    }

    @Test func i420WithPaddedRowsIsExact() throws {
        let reference = try Self.reference
        // Rows padded to 80 (luma) and 40 (chroma) bytes.
        var bytes: [UInt8] = []
        for (plane, (rowBytes, rows)) in [(Self.width, Self.height), (Self.width / 2, Self.height / 2), (Self.width / 2, Self.height / 2)].enumerated() {
            reference.withPlane(plane) { p in
                for row in 0..<rows { bytes += Array(p[(row * rowBytes)..<((row + 1) * rowBytes)]) + [UInt8](repeating: 0xEE, count: rowBytes / 4) }
            }
        }
        let picture = try convert(bytes, .i420, stride: 80)
        for plane in 0...2 { #expect(Self.difference(picture, reference, plane: plane).max == 0, "plane \(plane)") }
    }

    #if os(Linux)
    @Test(arguments: ["422", "420", "444"])
    func mjpegFramesDecodeToTheReference(subsampling: String) throws {
        let picture = try convert(try Self.fixture("mjpeg-\(subsampling)-64x48.jpg"), .mjpeg, stride: 0)
        #expect(picture.width == Self.width && picture.height == Self.height)
        // Exactly libjpeg-turbo's planes, chroma averaged down to 4:2:0 and mapped to BT.601 video range.
        let expected = try Self.expected("mjpeg-\(subsampling)-64x48")
        for plane in 0...2 { #expect(Self.difference(picture, expected, plane: plane).max == 0, "\(subsampling) plane \(plane)") }
        // And it is the reference picture: quality 2 JPEG plus the full-range round trip cost a
        // step or two of luma per pixel, more on edges.
        let d = Self.difference(picture, try Self.reference, plane: 0)
        #expect(d.mean < 3 && d.max < 48, "\(subsampling) luma: \(d)")
    }

    @Test func greyscaleMJPEGHasTheLumaAndNeutralChroma() throws {
        let picture = try convert(try Self.fixture("mjpeg-gray-64x48.jpg"), .mjpeg, stride: 0)
        let d = Self.difference(picture, try Self.reference, plane: 0)
        #expect(d.mean < 3, "luma: \(d)")
        for plane in 1...2 { picture.withPlane(plane) { p in #expect(p.allSatisfy { $0 == 128 }) } }
    }

    /// Camera streams carry damaged frames: cut-off and bit-flipped JPEGs and random bytes give a
    /// `JPEGError` or a picture of the size the header announces, never a crash, and the next good
    /// frame decodes (a refused frame once left libjpeg-turbo's decompressor unusable).
    @Test func damagedAndRandomMJPEGFramesAreRefusedOrDecoded() throws {
        let jpeg = try Self.fixture("mjpeg-422-64x48.jpg")
        let expected = try Self.expected("mjpeg-422-64x48")
        let decoder = try JPEGDecoder()
        var random = SeededRandom(seed: 0xCA3E7A)
        var refused = 0, decoded = 0
        for round in 0..<300 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0: bytes = Array(jpeg.prefix(Int.random(in: 0..<jpeg.count, using: &random)))
            case 1:
                bytes = jpeg
                for _ in 0..<Int.random(in: 1...8, using: &random) { bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
            default: bytes = random.bytes(Int.random(in: 0...512, using: &random))
            }
            do {
                let picture = try bytes.withUnsafeBytes { try decoder.decode($0) }
                #expect(picture.width > 0 && picture.height > 0 && picture.format == .i420)
                decoded += 1
            } catch is JPEGError {
                refused += 1
                let good = try jpeg.withUnsafeBytes { try decoder.decode($0) }
                for plane in 0...2 { #expect(Self.difference(good, expected, plane: plane).max == 0, "round \(round) plane \(plane)") }
            }
        }
        #expect(refused > 0 && decoded > 0)
    }

    /// The frame that broke the decoder: a DHT segment cut off in the middle (libjpeg's error exit
    /// left the decompressor mid-table; the next good frame failed "Bogus Huffman table definition").
    @Test func aGoodFrameDecodesAfterATruncatedHuffmanTable() throws {
        let jpeg = try Self.fixture("mjpeg-420-64x48.jpg")
        let dht = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 })
        let decoder = try JPEGDecoder()
        for cut in [dht + 6, dht + 20] {
            #expect(throws: JPEGError.self) { try Array(jpeg.prefix(cut)).withUnsafeBytes { try decoder.decode($0) } }
            let picture = try jpeg.withUnsafeBytes { try decoder.decode($0) }
            let expected = try Self.expected("mjpeg-420-64x48")
            for plane in 0...2 { #expect(Self.difference(picture, expected, plane: plane).max == 0, "cut \(cut) plane \(plane)") }
        }
    }
    #endif

    @Test func bytesThatCannotHoldThePictureAreRefused() throws {
        let yuyv = try Self.fixture("yuyv-64x48-stride160.raw")
        #expect(throws: PixelBufferError.self) { try convert(Array(yuyv.dropLast(200)), .yuyv, stride: 160) }
        #expect(throws: PixelBufferError.self) { try convert(yuyv, .yuyv, stride: 100) }   // under 2 bytes a pixel
        let nv12 = try Self.fixture("nv12-64x48-stride80.raw")
        #expect(throws: PixelBufferError.self) { try convert(Array(nv12.prefix(4_000)), .nv12, stride: 80) }
        #expect(throws: PixelBufferError.self) { try convert([UInt8](repeating: 0, count: 100), .i420, stride: 64) }
        // Seeded random sizes and strides: a picture of the asked size or an error.
        var random = SeededRandom(seed: 0x5EED)
        let converter = CameraFrameConverter()
        for _ in 0..<200 {
            let format = [CameraPixelFormat.yuyv, .nv12, .i420].randomElement(using: &random)!
            let width = Int.random(in: -2...80, using: &random), height = Int.random(in: -2...60, using: &random)
            let stride = Int.random(in: 0...200, using: &random)
            let bytes = random.bytes(Int.random(in: 0...20_000, using: &random))
            if let picture = try? bytes.withUnsafeBytes({ try converter.convert($0, format: format, width: width, height: height, stride: stride) }) {
                #expect(picture.width == width && picture.height == height)
            }
        }
    }
}
