import Foundation
import Testing
@testable import RTCMedia
import TestRandom

@Suite struct Y4MTests {
    @Test func roundTripInMemory() throws {
        let pattern = try TestPatternGenerator(width: 64, height: 48, frameRate: 25)
        let writer = try Y4MWriter(width: 64, height: 48, frameRate: 25)
        for number in 0..<3 { try writer.write(pattern.videoFrame(number: number)) }
        let header = "YUV4MPEG2 W64 H48 F25:1 Ip A1:1 C420jpeg\n"
        #expect(writer.bytes.starts(with: Array(header.utf8)))
        #expect(writer.bytes.count == header.utf8.count + 3 * (6 + 64 * 48 * 3 / 2))

        let reader = try Y4MReader(bytes: writer.bytes)
        #expect(reader.width == 64 && reader.height == 48 && reader.frameRate == (25, 1) && reader.colorSpace == "420jpeg")
        var frames: [VideoFrame] = []
        while let frame = try reader.readFrame() { frames.append(frame) }
        #expect(frames.map { TestPatternReader.frameNumber(in: $0) } == [0, 1, 2])
        #expect(frames.map(\.timestampUs) == [0, 40_000, 80_000])
        #expect(frames[1].buffer == pattern.buffer(number: 1))
        try reader.rewind()
        #expect(try reader.readFrame()?.buffer == pattern.buffer(number: 0))
    }

    @Test func roundTripThroughAFileWithFrameParametersAndOddSize() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-y4m-\(UInt32.random(in: 0...UInt32.max)).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 3×3 I420: 9 luma + 2×2 U + 2×2 V bytes; FRAME line with a parameter; C420paldv and a comment.
        let pixels = (0..<17).map { UInt8($0) }
        let bytes = Array("YUV4MPEG2 C420paldv W3 H3 F30000:1001 It A0:0 XYSCSS=420PALDV\n".utf8)
            + Array("FRAME Ixyz\n".utf8) + pixels
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let reader = try Y4MReader(path: path)
        #expect(reader.frameRate == (30_000, 1_001))
        let frame = try #require(try reader.readFrame())
        #expect(frame.buffer.data == pixels)
        #expect(try reader.readFrame() == nil)

        let copy = path + ".out"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let writer = try Y4MWriter(path: copy, width: 3, height: 3)
        try writer.write(frame)
        try writer.close()
        #expect(throws: MediaFileError.closed) { try writer.write(frame) }
        #expect(try Y4MReader(path: copy).readFrame()?.buffer.data == pixels)
    }

    @Test(arguments: [
        ("", MediaFileError.badSignature),
        ("YUV4MPEG W2 H2\n", .badSignature),
        ("YUV4MPEG2 H2\n", .invalidHeader("W")),
        ("YUV4MPEG2 W2 H0\n", .invalidHeader("H")),
        ("YUV4MPEG2 W99999 H2\n", .invalidHeader("W")),
        ("YUV4MPEG2 W2 H2 F30:0\n", .invalidHeader("F30:0")),
        ("YUV4MPEG2 W2 H2 C444\n", .unsupportedColorSpace("444")),
        ("YUV4MPEG2 W2 H2", .truncated),
    ])
    func malformedHeadersThrow(header: String, error: MediaFileError) {
        #expect(throws: error) { try Y4MReader(bytes: Array(header.utf8)) }
    }

    @Test func malformedFramesThrow() throws {
        let header = Array("YUV4MPEG2 W2 H2\n".utf8)
        #expect(throws: MediaFileError.invalidHeader("FRAME")) {
            try Y4MReader(bytes: header + Array("FRAMEX\n".utf8) + [UInt8](repeating: 0, count: 6)).readFrame()
        }
        #expect(throws: MediaFileError.truncated) {
            try Y4MReader(bytes: header + Array("FRAME\n".utf8) + [1, 2, 3]).readFrame()
        }
        #expect(throws: MediaFileError.invalidHeader("line longer than 4096 bytes")) {
            try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2 X".utf8) + [UInt8](repeating: 0x41, count: 5_000))
        }
        #expect(throws: MediaFileError.cannotOpen(path: "/nonexistent/x.y4m", errno: 2)) {
            try Y4MReader(path: "/nonexistent/x.y4m")
        }
    }

    @Test func seededRandomHeadersNeverCrash() {
        var random = SeededRandom(seed: 4_2)
        let alphabet = Array("YUV4MPEG2 WHFCIAX0123456789:\nFRAME".utf8)
        for _ in 0..<3_000 {
            let bytes = (0..<Int.random(in: 0...60, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            if let reader = try? Y4MReader(bytes: Array("YUV4MPEG2 ".utf8) + bytes) {
                _ = try? reader.readFrame()
            }
        }
    }
}
