import SRTCProtocol

/// Why an egress request was refused: an API error code and a message for the caller.
struct EgressError: Error, Sendable, Equatable {
    let code: APIErrorCode
    let message: String

    init(_ code: APIErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
