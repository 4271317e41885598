// Errors of the libaom AV1 encoder and dav1d decoder wrappers.
import CAOM

/// Why an AV1 encode or decode failed.
public enum AV1CodecError: Error, Sendable, Equatable {
    /// A configuration value is outside what the encoder supports (the message names it).
    case invalidConfiguration(String)
    /// libaom or dav1d could not create the encoder or decoder (the library's message or code).
    case initializationFailed(String)
    /// libaom rejected a frame to encode (its message attached).
    case encodeFailed(String)
    /// dav1d could not decode the data (its negative errno attached): corrupt, truncated, or a
    /// frame whose references it does not have.
    case decodeFailed(Int32)
    /// dav1d returned a picture this wrapper does not convert (only 8-bit 4:2:0 is).
    case unsupportedPicture(String)
    /// The data given to the decoder is empty.
    case invalidInput

    /// libaom's text for an error code, with the context's detail when it has one.
    static func message(_ code: aom_codec_err_t, _ context: UnsafeMutablePointer<aom_codec_ctx_t>?) -> String {
        var text = String(cString: aom_codec_err_to_string(code))
        if let context, let detail = aom_codec_error_detail(context) {
            text += ": " + String(cString: detail)
        }
        return text
    }
}
