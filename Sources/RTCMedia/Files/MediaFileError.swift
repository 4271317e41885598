// Errors of the Y4M and WAV readers and writers.

/// Why a media file could not be read or written.
public enum MediaFileError: Error, Sendable, Equatable {
    /// The file could not be opened (the path and the C `errno` attached).
    case cannotOpen(path: String, errno: Int32)
    /// Reading or writing the file failed at the operating-system level (`errno` attached).
    case ioFailed(errno: Int32)
    /// The data does not start with the format's signature (`YUV4MPEG2 `, or `RIFF`…`WAVE`).
    case badSignature
    /// A header line or field is missing, malformed or out of range (the field is named).
    case invalidHeader(String)
    /// The Y4M colour space is not a 4:2:0 8-bit layout (the `C` value attached).
    case unsupportedColorSpace(String)
    /// The WAV data is not 16-bit integer PCM (format tag and bits per sample attached).
    case unsupportedWAVFormat(formatTag: UInt16, bitsPerSample: UInt16)
    /// A required chunk (`fmt ` or `data`) is missing or out of order.
    case missingChunk(String)
    /// The data ends in the middle of a frame or header.
    case truncated
    /// A frame or buffer given to a writer does not match the file's size, rate or channels.
    case formatMismatch
    /// The writer was already closed.
    case closed
}
