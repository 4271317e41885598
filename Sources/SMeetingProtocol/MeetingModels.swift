/// A meeting as stored: what `createRoom`, `detailRoom` and the meeting lists return.
public struct MeetingInfo: Codable, Sendable, Equatable {
    public var meetingId: String
    /// The user-facing 9-digit meeting number, for sharing and inviting.
    public var roomNo: String
    public var title: String
    public var type: MeetingType
    public var mode: MeetingMode
    public var attendType: AttendType
    /// Shown to the host only (empty for everyone else).
    public var password: String?
    /// Invited uids (`attendType == .invitation`, or simply the invitation list).
    public var conferee: [String]
    public var hostUid: String
    public var status: MeetingStatus
    /// Planned start, Unix seconds (appointments).
    public var planTime: Int64?
    /// Planned duration, minutes (appointments).
    public var planDur: Int?
    /// Unix seconds.
    public var createdAt: Int64
    public var updatedAt: Int64
    public var startedAt: Int64?
    public var endedAt: Int64?
    /// Members who enter wait until a host or co-host admits them.
    public var waitingRoom: Bool
    /// An end-to-end encrypted meeting (docs/e2ee.md, "E2EE meetings"): true, else absent (nil).
    public var e2ee: Bool?

    public init(meetingId: String, roomNo: String, title: String, type: MeetingType, mode: MeetingMode, attendType: AttendType,
                password: String?, conferee: [String], hostUid: String, status: MeetingStatus, planTime: Int64?, planDur: Int?,
                createdAt: Int64, updatedAt: Int64, startedAt: Int64? = nil, endedAt: Int64? = nil, waitingRoom: Bool = false,
                e2ee: Bool = false) {
        self.meetingId = meetingId
        self.roomNo = roomNo
        self.title = title
        self.type = type
        self.mode = mode
        self.attendType = attendType
        self.password = password
        self.conferee = conferee
        self.hostUid = hostUid
        self.status = status
        self.planTime = planTime
        self.planDur = planDur
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.waitingRoom = waitingRoom
        self.e2ee = e2ee ? true : nil
    }
}

/// `createRoom(_:)`: a new meeting. An appointment needs `planTime` and `planDur`; a password
/// meeting needs `password`; an invitation meeting needs `conferee`. On the wire `type`, `mode`,
/// `attend_type` and `waiting_room` may be left out (`instant`, `normal`, `open`, `false`), as in
/// the server API's `/server/v1/meeting/create`.
public struct MeetingCreateReq: Codable, Sendable, Equatable {
    public var title: String
    public var type: MeetingType
    public var mode: MeetingMode
    public var attendType: AttendType
    public var password: String?
    public var conferee: [String]?
    public var planTime: Int64?
    public var planDur: Int?
    /// Members who enter wait until a host or co-host admits them.
    public var waitingRoom: Bool
    /// End-to-end encrypted (docs/e2ee.md, "E2EE meetings"): the members' clients encrypt every
    /// frame under a meeting key the host's client makes; fixed for the meeting's life.
    public var e2ee: Bool

    public init(title: String, type: MeetingType = .instant, mode: MeetingMode = .normal, attendType: AttendType = .open,
                password: String? = nil, conferee: [String]? = nil, planTime: Int64? = nil, planDur: Int? = nil,
                waitingRoom: Bool = false, e2ee: Bool = false) {
        self.title = title
        self.type = type
        self.mode = mode
        self.attendType = attendType
        self.password = password
        self.conferee = conferee
        self.planTime = planTime
        self.planDur = planDur
        self.waitingRoom = waitingRoom
        self.e2ee = e2ee
    }

    private enum CodingKeys: String, CodingKey {
        case title, type, mode, attendType, password, conferee, planTime, planDur, waitingRoom, e2ee
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        title = try c.decode(String.self, forKey: .title)
        type = try c.decodeIfPresent(MeetingType.self, forKey: .type) ?? .instant
        mode = try c.decodeIfPresent(MeetingMode.self, forKey: .mode) ?? .normal
        attendType = try c.decodeIfPresent(AttendType.self, forKey: .attendType) ?? .open
        password = try c.decodeIfPresent(String.self, forKey: .password)
        conferee = try c.decodeIfPresent([String].self, forKey: .conferee)
        planTime = try c.decodeIfPresent(Int64.self, forKey: .planTime)
        planDur = try c.decodeIfPresent(Int.self, forKey: .planDur)
        waitingRoom = try c.decodeIfPresent(Bool.self, forKey: .waitingRoom) ?? false
        e2ee = try c.decodeIfPresent(Bool.self, forKey: .e2ee) ?? false
    }
}

/// `updateRoom(meetingId:req:)`: the fields to change (absent fields stay).
public struct MeetingUpdateReq: Codable, Sendable, Equatable {
    public var title: String?
    public var mode: MeetingMode?
    public var attendType: AttendType?
    public var password: String?
    public var conferee: [String]?
    public var planTime: Int64?
    public var planDur: Int?
    public var waitingRoom: Bool?

    public init(title: String? = nil, mode: MeetingMode? = nil, attendType: AttendType? = nil, password: String? = nil,
                conferee: [String]? = nil, planTime: Int64? = nil, planDur: Int? = nil, waitingRoom: Bool? = nil) {
        self.title = title
        self.mode = mode
        self.attendType = attendType
        self.password = password
        self.conferee = conferee
        self.planTime = planTime
        self.planDur = planDur
        self.waitingRoom = waitingRoom
    }
}

/// `enterRoom(_:)`: give `meetingId` or `roomNo`; `password` for password meetings.
public struct MeetingEnterReq: Codable, Sendable, Equatable {
    public var meetingId: String?
    public var roomNo: String?
    public var password: String?
    /// Shown to the others; defaults to the member token's nickname, then the uid.
    public var nickname: String?

    public init(meetingId: String? = nil, roomNo: String? = nil, password: String? = nil, nickname: String? = nil) {
        self.meetingId = meetingId
        self.roomNo = roomNo
        self.password = password
        self.nickname = nickname
    }
}

/// One page of a meeting list (`attendeeRoom(page:)`, `attendedRoom(page:)`). Pages count from 1.
public struct MeetingPage: Codable, Sendable, Equatable {
    public var list: [MeetingInfo]
    public var page: Int
    public var pageSize: Int
    public var total: Int

    public init(list: [MeetingInfo], page: Int, pageSize: Int, total: Int) {
        self.list = list
        self.page = page
        self.pageSize = pageSize
        self.total = total
    }

    /// Whether a later page has more.
    public var hasMore: Bool { page * pageSize < total }
}

/// The meeting a `meeting_reminder` IM entry is about (its `data`, docs/im.md): sent by the
/// meeting backend before a scheduled meeting starts.
public struct MeetingReminder: Codable, Sendable, Equatable {
    public var meetingId: String
    public var roomNo: String
    public var title: String
    public var hostUid: String
    /// Unix seconds.
    public var planTime: Int64
    /// Minutes.
    public var planDur: Int?

    public init(meetingId: String, roomNo: String, title: String, hostUid: String, planTime: Int64, planDur: Int?) {
        self.meetingId = meetingId
        self.roomNo = roomNo
        self.title = title
        self.hostUid = hostUid
        self.planTime = planTime
        self.planDur = planDur
    }
}
