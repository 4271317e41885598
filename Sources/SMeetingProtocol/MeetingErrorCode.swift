/// Error codes of the meeting WebSocket (docs/meeting-protocol.md). The codes shared with the
/// server API keep their numbers (docs/server-api.md); the meeting's own causes have their own.
public enum MeetingErrorCode: Int, Codable, Sendable, CaseIterable {
    /// The message is not JSON, lacks a field, or a field has the wrong type.
    case malformedBody = 40001
    /// A field's value is invalid (title length, room number, plan time...).
    case invalidParameter = 40002
    /// The member token is malformed, badly signed, from an unknown app, or not a member token.
    case invalidToken = 40106
    /// The member token has expired.
    case tokenExpired = 40107
    /// The member token is not valid yet.
    case tokenNotYetValid = 40108
    /// The caller is not the host (or a co-host, where co-hosts may act).
    case permissionDenied = 40301
    /// A room policy forbids it: mute all, camera off for everyone, sharing or chat disabled.
    case policyForbidden = 40311
    /// The room is locked.
    case roomLocked = 40312
    /// The meeting's password is missing or wrong.
    case wrongPassword = 40313
    /// The meeting is by invitation and the caller is not invited.
    case notInvited = 40314
    /// No such meeting, room number or member.
    case notFound = 40401
    /// Not valid now: before `login`, a second `login`, entering while in a meeting, confirming a
    /// host request that was never made, a second sign-in while one runs.
    case wrongState = 40901
    /// The request needs the caller to be in a meeting.
    case notInMeeting = 40902
    /// The meeting has ended or was cancelled.
    case meetingClosed = 40903
    /// Someone else is sharing.
    case alreadySharing = 40904
    /// A sign-in or roll-call answer after its deadline.
    case deadlinePassed = 40905
    /// A text or message is over its size limit.
    case payloadTooLarge = 41301
    /// A limit was reached (members per meeting).
    case limitReached = 42901
    /// Too many logins from one IP address, or entries by one member, in a short time.
    case rateLimited = 42902
    /// The server failed.
    case internalError = 50001

    /// The stable snake_case name.
    public var name: String {
        switch self {
        case .malformedBody: return "malformed_body"
        case .invalidParameter: return "invalid_parameter"
        case .invalidToken: return "invalid_token"
        case .tokenExpired: return "token_expired"
        case .tokenNotYetValid: return "token_not_yet_valid"
        case .permissionDenied: return "permission_denied"
        case .policyForbidden: return "policy_forbidden"
        case .roomLocked: return "room_locked"
        case .wrongPassword: return "wrong_password"
        case .notInvited: return "not_invited"
        case .notFound: return "not_found"
        case .wrongState: return "wrong_state"
        case .notInMeeting: return "not_in_meeting"
        case .meetingClosed: return "meeting_closed"
        case .alreadySharing: return "already_sharing"
        case .deadlinePassed: return "deadline_passed"
        case .payloadTooLarge: return "payload_too_large"
        case .limitReached: return "limit_reached"
        case .rateLimited: return "rate_limited"
        case .internalError: return "internal_error"
        }
    }
}

/// An error answer: `{"code": 40311, "message": "…"}`.
public struct MeetingErrorBody: Codable, Sendable, Equatable, Error {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ code: MeetingErrorCode, _ message: String) {
        self.init(code: code.rawValue, message: message)
    }
}
