/// A sub-meeting (breakout room) of a meeting: its own SRTC channel, the members assigned to it.
public struct SubMeetingInfo: Codable, Sendable, Equatable {
    /// `S1`, `S2`… within the meeting.
    public var subMeetingId: String
    public var title: String
    /// Always `sub_meeting`.
    public var mode: MeetingMode
    public var status: SubMeetingStatus
    /// The assigned members (host and co-hosts visit rather than being assigned).
    public var members: [String]
    /// When a closing sub-meeting returns everyone to the main meeting, Unix milliseconds.
    public var closesAt: Int64?

    public init(subMeetingId: String, title: String, status: SubMeetingStatus, members: [String], closesAt: Int64? = nil) {
        self.subMeetingId = subMeetingId
        self.title = title
        self.mode = .subMeeting
        self.status = status
        self.members = members
        self.closesAt = closesAt
    }
}

/// `admin_create_sub_meetings`: one sub-meeting per title (1 to 50 in all).
public struct CreateSubMeetingsReq: Codable, Sendable {
    public var titles: [String]
    public init(titles: [String]) { self.titles = titles }
}

/// `admin_assign_sub_meeting`: moves `uids` into the sub-meeting's list (out of any other).
public struct AssignSubMeetingReq: Codable, Sendable {
    public var subMeetingId: String
    public var uids: [String]
    public init(subMeetingId: String, uids: [String]) { self.subMeetingId = subMeetingId; self.uids = uids }
}

/// `admin_visit_sub_meeting`: a host or co-host goes into a sub-meeting, or back to the main
/// meeting when `sub_meeting_id` is absent.
public struct VisitSubMeetingReq: Codable, Sendable {
    public var subMeetingId: String?
    public init(subMeetingId: String?) { self.subMeetingId = subMeetingId }
}

/// `admin_close_sub_meetings`: everyone returns to the main meeting after `countdown` seconds
/// (0 to 300, default 10).
public struct CloseSubMeetingsReq: Codable, Sendable {
    public var countdown: Int?
    public init(countdown: Int?) { self.countdown = countdown }
}

/// The sub-meeting list: most sub-meeting answers and `sub_meetings_changed`.
public struct SubMeetingsEvent: Codable, Sendable, Equatable {
    public var subMeetings: [SubMeetingInfo]
    public init(subMeetings: [SubMeetingInfo]) { self.subMeetings = subMeetings }
}

/// `sub_meeting_moved` (to the member who moves) and `admin_visit_sub_meeting`'s answer: leave the
/// SRTC channel you are in and join `rtc`'s; `sub_meeting` is `nil` back in the main meeting.
public struct SubMeetingMovedEvent: Codable, Sendable, Equatable {
    public var subMeeting: SubMeetingInfo?
    public var rtc: RTCGrant
    public init(subMeeting: SubMeetingInfo?, rtc: RTCGrant) { self.subMeeting = subMeeting; self.rtc = rtc }
}

/// `sub_meeting_help` (hosts and co-hosts): a member asks for help from a sub-meeting.
public struct SubMeetingHelpEvent: Codable, Sendable, Equatable {
    public var uid: String
    public var subMeetingId: String
    public init(uid: String, subMeetingId: String) { self.uid = uid; self.subMeetingId = subMeetingId }
}

/// `sub_meetings_closing` (everyone): the sub-meetings close in `countdown` seconds.
public struct SubMeetingsClosingEvent: Codable, Sendable, Equatable {
    public var countdown: Int
    public var closesAt: Int64
    public init(countdown: Int, closesAt: Int64) { self.countdown = countdown; self.closesAt = closesAt }
}

/// `admin_broadcast_sub_meetings`: a text for every sub-meeting.
public struct BroadcastReq: Codable, Sendable {
    public var text: String
    public init(text: String) { self.text = text }
}
