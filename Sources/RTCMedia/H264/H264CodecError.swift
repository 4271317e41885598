// Errors of the OpenH264 encoder and decoder wrappers.

/// Why an H.264 encode or decode failed.
public enum H264CodecError: Error, Sendable, Equatable {
    /// A configuration value is outside what the encoder supports (the message names it).
    case invalidConfiguration(String)
    /// OpenH264 could not create or initialise the encoder or decoder (its return code attached).
    case initializationFailed(Int)
    /// OpenH264 rejected a frame to encode (its return code attached).
    case encodeFailed(Int)
    /// The access unit could not be decoded (OpenH264's DECODING_STATE bits attached).
    case decodeFailed(Int)
    /// The data given to the decoder is empty or too large.
    case invalidInput
}
