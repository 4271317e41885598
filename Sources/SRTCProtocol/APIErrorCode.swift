/// Error codes of the server API and of signaling, one per cause, so a caller can tell a wrong
/// clock from a wrong key. Every error body is `{"code": Int, "message": String, "server_time": Int}`.
/// The table lives in docs/server-api.md and docs/openapi.yaml; keep the three in step.
public enum APIErrorCode: Int, Sendable, Codable, CaseIterable {
    /// The body is not valid JSON or lacks a required field.
    case malformedBody = 40001
    /// A field has an invalid value (channel or uid charset/length, expiry out of range...).
    case invalidParameter = 40002
    /// One of the four auth headers is missing or empty.
    case missingAuthHeader = 40101
    /// `app_id` names no app on this server.
    case unknownApp = 40102
    /// `timestamp` is not an integer within ±300 s of server time.
    case timestampOutOfWindow = 40103
    /// This `nonce` was already used within the window.
    case nonceReplayed = 40104
    /// `signature` does not match the request.
    case badSignature = 40105
    /// A join token is malformed, has a bad signature, or names an unknown app.
    case invalidToken = 40106
    /// A join token has expired (`exp` passed).
    case tokenExpired = 40107
    /// A join token is not valid yet (`nbf` in the future).
    case tokenNotYetValid = 40108
    /// The token's grant does not allow this action (publish, subscribe, publish data).
    case permissionDenied = 40301
    /// The module that owns the channel (the meeting backend) forbids this publish or unmute now:
    /// a room rule (mute all, camera off, sharing, voice or training mode) or the member's state.
    case policyForbidden = 40311
    /// No such route, channel, user or track.
    case notFound = 40401
    /// The route exists but not for this method.
    case methodNotAllowed = 40501
    /// The request is not valid in the current state (not joined, already published...).
    case wrongState = 40901
    /// Something with this identity already exists (a composite with this uid, a recording of this track).
    case alreadyExists = 40902
    /// A WHIP or WHEP `PATCH` names an entity tag (`If-Match`) that is not the session's current one.
    case preconditionFailed = 41201
    /// The body or message exceeds the size limit.
    case payloadTooLarge = 41301
    /// The body's `Content-Type` is not the one the route takes (WHIP and WHEP: `application/sdp`,
    /// `application/trickle-ice-sdpfrag`).
    case unsupportedMediaType = 41501
    /// A configured limit was reached (users per channel, tracks per user...).
    case limitReached = 42901
    /// Too many requests (join rate, or the replay cache is full); retry later.
    case rateLimited = 42902
    /// The server failed; the message says what, never a secret.
    case internalError = 50001
    /// The recording directory cannot be written: missing, not writable, or full.
    case storageFailed = 50701

    /// The HTTP status that carries this code.
    public var httpStatus: Int {
        switch self {
        case .malformedBody, .invalidParameter: return 400
        case .missingAuthHeader, .unknownApp, .timestampOutOfWindow, .nonceReplayed, .badSignature,
             .invalidToken, .tokenExpired, .tokenNotYetValid: return 401
        case .permissionDenied, .policyForbidden: return 403
        case .notFound: return 404
        case .methodNotAllowed: return 405
        case .wrongState, .alreadyExists: return 409
        case .preconditionFailed: return 412
        case .payloadTooLarge: return 413
        case .unsupportedMediaType: return 415
        case .limitReached, .rateLimited: return 429
        case .internalError: return 500
        case .storageFailed: return 507
        }
    }

    /// A short stable name, used as the `cause` label in metrics.
    public var name: String {
        switch self {
        case .malformedBody: return "malformed_body"
        case .invalidParameter: return "invalid_parameter"
        case .missingAuthHeader: return "missing_header"
        case .unknownApp: return "unknown_app"
        case .timestampOutOfWindow: return "timestamp_out_of_window"
        case .nonceReplayed: return "nonce_replayed"
        case .badSignature: return "bad_signature"
        case .invalidToken: return "invalid_token"
        case .tokenExpired: return "token_expired"
        case .tokenNotYetValid: return "token_not_yet_valid"
        case .permissionDenied: return "permission_denied"
        case .policyForbidden: return "policy_forbidden"
        case .notFound: return "not_found"
        case .methodNotAllowed: return "method_not_allowed"
        case .wrongState: return "wrong_state"
        case .alreadyExists: return "already_exists"
        case .preconditionFailed: return "precondition_failed"
        case .payloadTooLarge: return "payload_too_large"
        case .unsupportedMediaType: return "unsupported_media_type"
        case .limitReached: return "limit_reached"
        case .rateLimited: return "rate_limited"
        case .internalError: return "internal_error"
        case .storageFailed: return "storage_failed"
        }
    }
}

/// The JSON body of every API error.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var code: Int
    public var message: String
    public var server_time: Int64

    public init(code: APIErrorCode, message: String, serverTime: Int64) {
        self.code = code.rawValue
        self.message = message
        self.server_time = serverTime
    }
}
