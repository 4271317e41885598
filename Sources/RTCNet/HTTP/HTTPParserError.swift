/// Why bytes from a peer are not a valid HTTP/1.1 message. For requests, `status` is the answer the
/// server sends before closing the connection.
public enum HTTPParserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request line is not `method SP request-target SP HTTP-version` (400).
    case malformedRequestLine
    /// The request line is longer than the limit (414).
    case requestLineTooLong
    /// A well-formed version other than HTTP/1.0 and HTTP/1.1 (505).
    case unsupportedVersion
    /// The header section is larger than the limit (431).
    case headerSectionTooLarge
    /// More header fields than the limit (431).
    case tooManyHeaderFields
    /// A header line is malformed: no colon, space before the colon, obs-fold, bare CR or control bytes (400).
    case malformedHeader
    /// `Content-Length` is not one non-negative decimal number, or copies disagree (400).
    case invalidContentLength
    /// The declared body is larger than the limit (413).
    case bodyTooLarge
    /// The request uses the chunked transfer coding; this server needs `Content-Length` (411).
    case chunkedRequestBody
    /// The request uses a transfer coding other than chunked (501).
    case unsupportedTransferEncoding
    /// An HTTP/1.1 request without exactly one `Host` field (400, RFC 9112 §3.2).
    case invalidHost
    /// A response status line is not `HTTP-version SP 3DIGIT SP reason` (client side).
    case malformedStatusLine
    /// A chunk-size line or chunk terminator in a chunked response is malformed (client side).
    case malformedChunk

    /// The status code a server answers this error with.
    public var status: Int {
        switch self {
        case .malformedRequestLine, .malformedHeader, .invalidContentLength, .invalidHost,
             .malformedStatusLine, .malformedChunk: return 400
        case .requestLineTooLong: return 414
        case .unsupportedVersion: return 505
        case .headerSectionTooLarge, .tooManyHeaderFields: return 431
        case .bodyTooLarge: return 413
        case .chunkedRequestBody: return 411
        case .unsupportedTransferEncoding: return 501
        }
    }

    public var description: String {
        switch self {
        case .malformedRequestLine: return "malformed request line"
        case .requestLineTooLong: return "request line too long"
        case .unsupportedVersion: return "HTTP version not supported"
        case .headerSectionTooLarge: return "header section too large"
        case .tooManyHeaderFields: return "too many header fields"
        case .malformedHeader: return "malformed header field"
        case .invalidContentLength: return "invalid Content-Length"
        case .bodyTooLarge: return "body too large"
        case .chunkedRequestBody: return "chunked request bodies are not supported; send Content-Length"
        case .unsupportedTransferEncoding: return "transfer coding not supported; send Content-Length"
        case .invalidHost: return "HTTP/1.1 requests need exactly one Host header"
        case .malformedStatusLine: return "malformed status line"
        case .malformedChunk: return "malformed chunked body"
        }
    }
}
