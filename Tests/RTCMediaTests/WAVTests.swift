import Foundation
import Testing
@testable import RTCMedia
import TestRandom

@Suite struct WAVTests {
    @Test func roundTripInMemoryWithExactHeader() throws {
        let writer = try WAVWriter(sampleRate: 8_000, channels: 2)
        try writer.write(AudioPCMBuffer(int16: [1, -1, 256, -32_768], sampleRate: 8_000, channels: 2))
        try writer.close()
        #expect(writer.bytes == [
            0x52, 0x49, 0x46, 0x46, 0x2C, 0, 0, 0, 0x57, 0x41, 0x56, 0x45,   // "RIFF", 36 + 8, "WAVE"
            0x66, 0x6D, 0x74, 0x20, 16, 0, 0, 0,                              // "fmt ", 16
            1, 0, 2, 0, 0x40, 0x1F, 0, 0,                                     // PCM, 2 channels, 8000 Hz
            0x00, 0x7D, 0, 0, 4, 0, 16, 0,                                    // 32000 B/s, block 4, 16 bits
            0x64, 0x61, 0x74, 0x61, 8, 0, 0, 0,                               // "data", 8
            1, 0, 0xFF, 0xFF, 0x00, 0x01, 0x00, 0x80,                         // 1, -1, 256, -32768
        ])
        let reader = try WAVReader(bytes: writer.bytes)
        #expect(reader.sampleRate == 8_000 && reader.channels == 2 && reader.frameCount == 2)
        #expect(try reader.readAll().int16Samples == [1, -1, 256, -32_768])
    }

    @Test func readsInChunksWithTimestamps() throws {
        var tone = SineToneGenerator(frequency: 440, sampleRate: 48_000)
        let original = tone.next(frameCount: 2_500)
        let writer = try WAVWriter(sampleRate: 48_000, channels: 1)
        try writer.write(original)
        try writer.close()
        let reader = try WAVReader(bytes: writer.bytes)
        var chunks: [AudioPCMBuffer] = []
        while let chunk = try reader.read(frameCount: 960) { chunks.append(chunk) }
        #expect(chunks.map(\.frameCount) == [960, 960, 580])
        #expect(chunks.map(\.timestampUs) == [0, 20_000, 40_000])
        #expect(chunks.flatMap(\.int16Samples) == original.int16Samples)
    }

    @Test func skipsUnknownChunksAndAcceptsExtensibleFormat() throws {
        func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        let list = Array("LIST".utf8) + le32(3) + [0x61, 0x62, 0x63, 0x00]          // odd size + pad byte
        let fmt = Array("fmt ".utf8) + le32(40)
            + [0xFE, 0xFF, 1, 0] + le32(16_000) + le32(32_000) + [2, 0, 16, 0]       // EXTENSIBLE, mono, 16 kHz
            + [22, 0, 16, 0] + le32(4)                                               // cbSize, valid bits, mask
            + [1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]     // KSDATAFORMAT_SUBTYPE_PCM
        let fact = Array("fact".utf8) + le32(4) + le32(2)
        let data = Array("data".utf8) + le32(0xFFFF_FFFF) + [5, 0, 6, 0]             // streaming size
        let file = Array("RIFF".utf8) + le32(0) + Array("WAVE".utf8) + list + fmt + fact + data
        let reader = try WAVReader(bytes: file)
        #expect(reader.sampleRate == 16_000 && reader.channels == 1 && reader.frameCount == nil)
        #expect(try reader.readAll().int16Samples == [5, 6])
    }

    @Test func roundTripThroughAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-\(UInt32.random(in: 0...UInt32.max)).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try WAVWriter(path: path, sampleRate: 48_000, channels: 2)
        try writer.write(AudioPCMBuffer(float32: [0.5, -0.5, 1.5, -2], sampleRate: 48_000, channels: 2))
        #expect(throws: MediaFileError.formatMismatch) {
            try writer.write(AudioPCMBuffer(int16: [1], sampleRate: 48_000, channels: 1))
        }
        try writer.close()
        let reader = try WAVReader(path: path)
        #expect(reader.frameCount == 2)
        #expect(try reader.readAll().int16Samples == [16_384, -16_384, 32_767, -32_768])
    }

    @Test(arguments: [
        ([], MediaFileError.badSignature),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVX".utf8), .badSignature),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8), .missingChunk("fmt ")),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEdata\u{0}\u{0}\u{0}\u{0}".utf8), .missingChunk("fmt ")),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEJUNK\u{FF}\u{0}\u{0}\u{0}ab".utf8), .missingChunk("data")),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt \u{4}\u{0}\u{0}\u{0}abcd".utf8), .invalidHeader("fmt size 4")),
    ] as [([UInt8], MediaFileError)])
    func malformedHeadersThrow(bytes: [UInt8], error: MediaFileError) {
        #expect(throws: error) { try WAVReader(bytes: bytes) }
    }

    @Test func nonPCMFormatsAreRejected() throws {
        // fmt with tag 3 (IEEE float), 32 bits.
        let fmt: [UInt8] = Array("fmt ".utf8) + [16, 0, 0, 0, 3, 0, 1, 0, 0x80, 0xBB, 0, 0, 0, 0xEE, 2, 0, 4, 0, 32, 0]
        let file = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8) + fmt
        #expect(throws: MediaFileError.unsupportedWAVFormat(formatTag: 3, bitsPerSample: 32)) { try WAVReader(bytes: file) }
    }

    @Test func seededRandomAndLengthLyingInputsNeverCrash() throws {
        var random = SeededRandom(seed: 0x57A7)
        let writer = try WAVWriter(sampleRate: 8_000, channels: 1)
        try writer.write(AudioPCMBuffer(int16: [1, 2, 3, 4], sampleRate: 8_000, channels: 1))
        try writer.close()
        let valid = writer.bytes
        for _ in 0..<5_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            if let reader = try? WAVReader(bytes: bytes) { _ = try? reader.readAll() }
        }
    }
}
