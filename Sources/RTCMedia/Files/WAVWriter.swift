// Writes 16-bit PCM WAV: the audio recording format of `srtc join --record`. The header is written with
// placeholder sizes and patched on `close()`; a file left unclosed still reads back, because `WAVReader`
// treats a zero data size as "until the end of the file".

// MARK: - Types

/// Writes interleaved 16-bit PCM to a WAV file or to memory.
public final class WAVWriter {
    /// Samples per second per channel.
    public let sampleRate: Int
    /// Interleaved channels.
    public let channels: Int
    /// Frames written so far.
    public private(set) var frameCount = 0
    private let output: ByteOutput
    private var isClosed = false

    /// Size of the canonical header: RIFF (12) + fmt chunk (24) + data chunk header (8).
    static let headerLength = 44

    // MARK: - Public API

    /// Creates a WAV file and writes its header.
    public convenience init(path: String, sampleRate: Int, channels: Int) throws {
        try self.init(output: ByteOutput(path: path), sampleRate: sampleRate, channels: channels)
    }

    /// Writes WAV into memory; read the result from `bytes` after `close()`.
    public convenience init(sampleRate: Int, channels: Int) throws {
        try self.init(output: ByteOutput(), sampleRate: sampleRate, channels: channels)
    }

    private init(output: ByteOutput, sampleRate: Int, channels: Int) throws {
        guard (1...768_000).contains(sampleRate) else { throw MediaFileError.invalidHeader("sample rate \(sampleRate)") }
        guard (1...32).contains(channels) else { throw MediaFileError.invalidHeader("channels \(channels)") }
        self.output = output
        self.sampleRate = sampleRate
        self.channels = channels
        try output.write(header(dataBytes: 0))
    }

    deinit { try? close() }

    /// Appends a buffer (float samples are converted to 16 bits).
    /// - Throws: `MediaFileError.formatMismatch` when its rate or channels differ from the file's.
    public func write(_ buffer: AudioPCMBuffer) throws {
        guard !isClosed else { throw MediaFileError.closed }
        guard buffer.sampleRate == sampleRate, buffer.channels == channels else { throw MediaFileError.formatMismatch }
        let samples = buffer.int16Samples
        var raw = [UInt8](repeating: 0, count: samples.count * 2)
        for (index, sample) in samples.enumerated() {
            let bits = UInt16(bitPattern: sample)
            raw[2 * index] = UInt8(bits & 0xFF)
            raw[2 * index + 1] = UInt8(bits >> 8)
        }
        try output.write(raw)
        frameCount += buffer.frameCount
    }

    /// Patches the header's sizes and closes the file. Calling it again does nothing.
    public func close() throws {
        guard !isClosed else { return }
        isClosed = true
        try output.overwrite(at: 0, with: header(dataBytes: frameCount * channels * 2))
        try output.close()
    }

    /// The whole file, for a writer created in memory (complete after `close()`).
    public var bytes: [UInt8] { output.bytes }

    // MARK: - Internals

    private func header(dataBytes: Int) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] {
            let clamped = UInt32(clamping: value)
            return [UInt8(clamped & 0xFF), UInt8(clamped >> 8 & 0xFF), UInt8(clamped >> 16 & 0xFF), UInt8(clamped >> 24)]
        }
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        return Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVE".utf8)
            + Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(sampleRate)
            + le32(sampleRate * channels * 2) + le16(channels * 2) + le16(16)
            + Array("data".utf8) + le32(dataBytes)
    }
}
