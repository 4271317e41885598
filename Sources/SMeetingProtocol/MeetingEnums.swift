/// `.instant` starts when someone enters; `.appointment` is planned (`planTime`, `planDur`).
public enum MeetingType: String, Codable, Sendable, CaseIterable {
    case instant
    case appointment
}

/// How the meeting runs: normal, composite (`mix`), voice only, training, sub-meeting.
public enum MeetingMode: String, Codable, Sendable, CaseIterable {
    case normal
    case mix
    case voice
    case training
    case subMeeting = "sub_meeting"

    /// The uid under which a `.mix` meeting's server-side composite (every camera in one picture,
    /// docs/egress.md) is published in the meeting's channel; it is not a member.
    public static let mixCompositeUid = "mcu"
}

/// Who may enter: anyone with the room number, anyone with the password, or the invited
/// members (`conferee`) only. The host may always enter.
public enum AttendType: String, Codable, Sendable, CaseIterable {
    case open
    case password
    case invitation
}

/// Where a meeting is in its life.
public enum MeetingStatus: String, Codable, Sendable, CaseIterable {
    /// Created, nobody has entered yet.
    case scheduled
    /// Someone entered; not ended.
    case ongoing
    /// Ended by the host or the backend; cannot be entered again.
    case ended
    /// Cancelled before it started.
    case cancelled
}

/// A member's role in a meeting.
public enum Role: String, Codable, Sendable, CaseIterable {
    case member
    case host
    case coHost = "co_host"

    /// Host and co-host may call the `admin…` operations.
    public var isAdmin: Bool { self != .member }
}

/// A member's microphone.
public enum MicState: String, Codable, Sendable {
    case on
    case off
}

/// A member's camera.
public enum CameraState: String, Codable, Sendable {
    case on
    case off
}

/// What a member shares; `MeetingUserInfo.shareState` is its `rawValue` (0 when not sharing).
public enum ShareType: Int, Codable, Sendable, CaseIterable {
    case screen = 1
    case whiteBoard = 2
}

/// The fixed description of a meeting media stream. `camera_big` and `camera_small` are the two
/// simulcast layers of one camera track.
public enum TrackDesc: String, Codable, Sendable, CaseIterable {
    case mic
    case cameraBig = "camera_big"
    case cameraSmall = "camera_small"
    case screen
}

/// Why a member left the meeting.
public enum ExitReason: String, Codable, Sendable {
    /// The member called `exitRoom()` (or `logout()`).
    case exit
    /// A host or co-host (or the backend) removed the member.
    case kicked
    /// The meeting ended for everyone.
    case ended
    /// The member's connection was lost.
    case disconnected
    /// The same uid entered again from another session.
    case duplicateLogin = "duplicate_login"
}

/// Which of a member's devices a host asks to turn on.
public enum AdminRequestKind: String, Codable, Sendable {
    case mic
    case camera
}

/// Why a member left the waiting room.
public enum WaitingLeaveReason: String, Codable, Sendable {
    /// A host or co-host (or the backend) let the member in.
    case admitted
    /// A host or co-host (or the backend) sent the member away.
    case removed
    /// The member gave up waiting (`exit_room`, `logout`, or its connection was lost for good).
    case left
}

/// Where a sub-meeting is in its life.
public enum SubMeetingStatus: String, Codable, Sendable {
    /// Created, members may be assigned; nobody is in it yet.
    case created
    /// Open: assigned members are in it.
    case open
    /// Closing: everyone returns to the main meeting when the countdown ends.
    case closing
}

/// A sign-in (everyone present is asked) or a roll call (one member is called).
public enum SignInKind: String, Codable, Sendable {
    case signIn = "sign_in"
    case rollCall = "roll_call"
}
