// Errors of the libvpx VP8 encoder and decoder wrappers.
import CVPX

/// Why a VP8 encode or decode failed.
public enum VP8CodecError: Error, Sendable, Equatable {
    /// A configuration value is outside what the encoder supports (the message names it).
    case invalidConfiguration(String)
    /// libvpx could not create the encoder or decoder (its message attached).
    case initializationFailed(String)
    /// libvpx rejected a frame to encode (its message attached).
    case encodeFailed(String)
    /// The compressed data could not be decoded: corrupt, truncated, or a delta frame without its reference.
    case decodeFailed(String)
    /// The data given to the decoder is empty or larger than libvpx accepts.
    case invalidInput

    /// libvpx's text for an error code, with the context's detail when it has one.
    static func message(_ code: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?) -> String {
        var text = String(cString: vpx_codec_err_to_string(code))
        if let context, let detail = vpx_codec_error_detail(context) {
            text += ": " + String(cString: detail)
        }
        return text
    }
}
