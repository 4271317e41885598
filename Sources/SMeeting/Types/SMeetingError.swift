import SMeetingProtocol

/// The errors of `SMeetingEngine`. Server refusals keep their code (docs/meeting-protocol.md):
/// a permission or room-policy refusal is `.unauthorized`, a request outside a meeting
/// `.notInMeeting`, every other refusal `.apiError(code:message:)`.
public enum SMeetingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not logged in (`login(token:)` first). Not in the Apple SDK's list: there the meeting
    /// calls need a login too, and this names that cause.
    case notLoggedIn
    /// The call needs the member to be in a meeting.
    case notInMeeting
    /// The caller is not host / co-host, or a room policy (mute all, camera off for everyone,
    /// sharing or chat disabled) forbids it.
    case unauthorized
    /// The meeting backend refused the request with `code`.
    case apiError(code: Int, message: String)
    /// A local failure: the connection, an unexpected answer, sharing twice, a missing track.
    case internalError(String)
    /// A device problem (the camera is not on, no such device).
    case deviceError(String)

    /// Maps a server refusal to the documented cases.
    init(_ body: MeetingErrorBody) {
        switch MeetingErrorCode(rawValue: body.code) {
        case .permissionDenied, .policyForbidden: self = .unauthorized
        case .notInMeeting: self = .notInMeeting
        default: self = .apiError(code: body.code, message: body.message)
        }
    }

    public var description: String {
        switch self {
        case .notLoggedIn: return "not logged in"
        case .notInMeeting: return "not in a meeting"
        case .unauthorized: return "unauthorized"
        case .apiError(let code, let message): return "meeting error \(code): \(message)"
        case .internalError(let message): return "internal error: \(message)"
        case .deviceError(let message): return "device error: \(message)"
        }
    }
}
