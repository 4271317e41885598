// Errors of the Opus codec wrapper: libopus's own error codes, named, plus misuse caught before libopus.
import COpus

/// Why an Opus encode or decode failed.
public enum OpusError: Error, Sendable, Equatable {
    /// libopus rejected an argument (`OPUS_BAD_ARG`): a sample rate, channel count or frame size it does not support.
    case badArgument
    /// The output buffer was too small for the result (`OPUS_BUFFER_TOO_SMALL`).
    case bufferTooSmall
    /// libopus hit an internal error (`OPUS_INTERNAL_ERROR`).
    case internalError
    /// The compressed data is corrupt or not an Opus packet (`OPUS_INVALID_PACKET`).
    case invalidPacket
    /// The request is not implemented by this libopus (`OPUS_UNIMPLEMENTED`).
    case unimplemented
    /// The encoder or decoder state is invalid (`OPUS_INVALID_STATE`).
    case invalidState
    /// libopus could not allocate memory (`OPUS_ALLOC_FAIL`).
    case allocationFailed
    /// libopus returned a code this wrapper does not know.
    case unknown(code: Int32)
    /// A configuration value is outside what Opus allows (the message names it).
    case unsupportedConfiguration(String)
    /// The PCM given does not have the codec's sample rate or channel count.
    case pcmFormatMismatch(expectedSampleRate: Int, expectedChannels: Int)
    /// The PCM given does not hold exactly one frame (or, for decoding, a valid frame duration).
    case frameSizeMismatch(expectedFrames: Int, actualFrames: Int)

    /// Maps a negative libopus return code.
    init(code: Int32) {
        switch code {
        case OPUS_BAD_ARG: self = .badArgument
        case OPUS_BUFFER_TOO_SMALL: self = .bufferTooSmall
        case OPUS_INTERNAL_ERROR: self = .internalError
        case OPUS_INVALID_PACKET: self = .invalidPacket
        case OPUS_UNIMPLEMENTED: self = .unimplemented
        case OPUS_INVALID_STATE: self = .invalidState
        case OPUS_ALLOC_FAIL: self = .allocationFailed
        default: self = .unknown(code: code)
        }
    }

    /// Throws when a libopus call returned a negative code, else returns the value.
    @discardableResult
    static func check(_ code: Int32) throws -> Int32 {
        guard code >= 0 else { throw OpusError(code: code) }
        return code
    }
}
