// Reads RIFF/WAVE audio holding 16-bit PCM at any rate and channel count. The chunk walk skips anything it
// does not need (LIST, fact, bext, JUNK, …, each padded to an even size), accepts WAVE_FORMAT_EXTENSIBLE
// with a PCM sub-format, and treats a data size of 0 or 0xFFFFFFFF, or one past the end of the file (as
// written by streaming recorders that never went back to patch it), as "until the end of the file".

// MARK: - Types

/// Reads interleaved 16-bit PCM from a WAV file or byte array; used by `srtc join --audio file.wav`.
public final class WAVReader {
    /// Samples per second per channel.
    public let sampleRate: Int
    /// Interleaved channels.
    public let channels: Int
    /// Frames in the data chunk, when its size is trustworthy.
    public let frameCount: Int?
    /// Frames read so far.
    public private(set) var framePosition = 0

    private let input: ByteInput
    /// Data bytes not yet read, or nil when reading until the end of the file.
    private var remainingBytes: Int?

    // MARK: - Public API

    /// Opens a WAV file.
    /// - Throws: `MediaFileError` when the file cannot be opened or is not 16-bit PCM WAV.
    public convenience init(path: String) throws {
        try self.init(input: ByteInput(path: path), totalSize: nil)
    }

    /// Reads WAV data held in memory.
    public convenience init(bytes: [UInt8]) throws {
        try self.init(input: ByteInput(bytes: bytes), totalSize: bytes.count)
    }

    private init(input: ByteInput, totalSize: Int?) throws {
        self.input = input
        guard let riff = try input.read(count: 12), riff[0..<4].elementsEqual("RIFF".utf8),
              riff[8..<12].elementsEqual("WAVE".utf8) else { throw MediaFileError.badSignature }
        var format: (channels: Int, sampleRate: Int)?
        while true {
            guard let header = try input.read(count: 8) else {
                throw MediaFileError.missingChunk(format == nil ? "fmt " : "data")
            }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let size = Int(Self.uint32(header, at: 4))
            if id == "fmt " {
                guard size >= 16, size <= 1_024, let body = try input.read(count: size) else {
                    throw MediaFileError.invalidHeader("fmt size \(size)")
                }
                format = try Self.parseFormat(body)
                if size % 2 == 1 { _ = try input.skip(1) }
            } else if id == "data" {
                guard let format else { throw MediaFileError.missingChunk("fmt ") }
                let blockAlign = format.channels * 2
                let available = totalSize.map { $0 - input.offset }
                let trusted = size != 0 && size != 0xFFFF_FFFF && available.map { size <= $0 } ?? true
                remainingBytes = trusted ? size - size % blockAlign : nil
                frameCount = remainingBytes.map { $0 / blockAlign }
                channels = format.channels
                sampleRate = format.sampleRate
                return
            } else {
                // Unneeded chunk: skip it and its pad byte.
                guard try input.skip(size + size % 2) else { throw MediaFileError.missingChunk("data") }
            }
        }
    }

    /// Reads up to `frameCount` frames; fewer at the end of the data, nil when nothing is left.
    public func read(frameCount requested: Int) throws -> AudioPCMBuffer? {
        let blockAlign = channels * 2
        var byteCount = max(0, requested) * blockAlign
        if let remainingBytes { byteCount = min(byteCount, remainingBytes) }
        guard byteCount > 0 else { return nil }
        var raw = [UInt8](repeating: 0, count: byteCount)
        var got = try raw.withUnsafeMutableBytes { try input.read(into: $0) }
        got -= got % blockAlign
        guard got > 0 else { return nil }
        remainingBytes = remainingBytes.map { $0 - got }
        var samples = [Int16](repeating: 0, count: got / 2)
        for index in samples.indices {
            samples[index] = Int16(bitPattern: UInt16(raw[2 * index]) | UInt16(raw[2 * index + 1]) << 8)
        }
        let timestamp = Int64(framePosition) * 1_000_000 / Int64(sampleRate)
        framePosition += samples.count / channels
        return AudioPCMBuffer(int16: samples, sampleRate: sampleRate, channels: channels, timestampUs: timestamp)
    }

    /// Reads every remaining frame into one buffer.
    public func readAll() throws -> AudioPCMBuffer {
        var samples: [Int16] = []
        while let chunk = try read(frameCount: 65_536) { samples += chunk.int16Samples }
        return AudioPCMBuffer(int16: samples, sampleRate: sampleRate, channels: channels)
    }

    // MARK: - Internals

    static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(uint16(bytes, at: offset)) | UInt32(uint16(bytes, at: offset + 2)) << 16
    }

    /// The `fmt ` chunk body: format tag, channels, rate, byte rate, block align, bits (+ extensible fields).
    static func parseFormat(_ body: [UInt8]) throws -> (channels: Int, sampleRate: Int) {
        var tag = uint16(body, at: 0)
        let channels = Int(uint16(body, at: 2))
        let sampleRate = Int(uint32(body, at: 4))
        let blockAlign = Int(uint16(body, at: 12))
        let bits = uint16(body, at: 14)
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: the real tag is the first two bytes of the sub-format GUID at offset 24.
            guard body.count >= 40 else { throw MediaFileError.invalidHeader("extensible fmt size \(body.count)") }
            tag = uint16(body, at: 24)
        }
        guard tag == 1, bits == 16 else { throw MediaFileError.unsupportedWAVFormat(formatTag: tag, bitsPerSample: bits) }
        guard (1...32).contains(channels) else { throw MediaFileError.invalidHeader("channels \(channels)") }
        guard (1...768_000).contains(sampleRate) else { throw MediaFileError.invalidHeader("sample rate \(sampleRate)") }
        guard blockAlign == channels * 2 else { throw MediaFileError.invalidHeader("block align \(blockAlign)") }
        return (channels, sampleRate)
    }
}
