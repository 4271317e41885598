/// Room-level state of the current meeting: title, policies (mute all, camera off for everyone,
/// sharing disabled, lock) and who shares. A read-only snapshot; events say when it changed.
public struct RoomInfo: Codable, Sendable, Equatable {
    public var meetingId: String
    public var roomNo: String
    public var title: String
    public var hostUid: String
    public var type: MeetingType
    public var mode: MeetingMode
    public var attendType: AttendType
    public var status: MeetingStatus
    /// Mute all is on: members' microphones were closed.
    public var muteAll: Bool
    /// With mute all on, whether members may open their microphones themselves.
    public var allowSelfUnmute: Bool
    /// Camera off for everyone is on.
    public var cameraOffAll: Bool
    /// With camera off for everyone, whether members may open their cameras themselves.
    public var allowSelfOpenCamera: Bool
    /// Members may not share (host and co-hosts still may).
    public var shareDisabled: Bool
    /// Nobody but host and co-hosts may enter.
    public var locked: Bool
    /// The member sharing now, if any.
    public var sharingUid: String?
    /// What is shared: 0 nothing, else a `ShareType` raw value.
    public var shareType: Int
    /// Unix milliseconds of the first entry.
    public var startedAt: Int64
    /// Members in the meeting (the waiting room not included).
    public var memberCount: Int
    /// Members who enter wait until a host or co-host admits them.
    public var waitingRoom: Bool
    /// An end-to-end encrypted meeting (docs/e2ee.md, "E2EE meetings"): true, else absent (nil).
    public var e2ee: Bool?
    /// The meeting's ingresses (`admin_create_ingress`): encoders' streams shown as tiles; absent
    /// when there are none.
    public var ingresses: [MeetingIngress]?

    public init(meetingId: String, roomNo: String, title: String, hostUid: String, type: MeetingType, mode: MeetingMode,
                attendType: AttendType, status: MeetingStatus, muteAll: Bool = false, allowSelfUnmute: Bool = true,
                cameraOffAll: Bool = false, allowSelfOpenCamera: Bool = true, shareDisabled: Bool = false, locked: Bool = false,
                sharingUid: String? = nil, shareType: Int = 0, startedAt: Int64, memberCount: Int = 0, waitingRoom: Bool = false,
                e2ee: Bool = false) {
        self.meetingId = meetingId
        self.roomNo = roomNo
        self.title = title
        self.hostUid = hostUid
        self.type = type
        self.mode = mode
        self.attendType = attendType
        self.status = status
        self.muteAll = muteAll
        self.allowSelfUnmute = allowSelfUnmute
        self.cameraOffAll = cameraOffAll
        self.allowSelfOpenCamera = allowSelfOpenCamera
        self.shareDisabled = shareDisabled
        self.locked = locked
        self.sharingUid = sharingUid
        self.shareType = shareType
        self.startedAt = startedAt
        self.memberCount = memberCount
        self.waitingRoom = waitingRoom
        self.e2ee = e2ee ? true : nil
    }
}

/// An ingress of the meeting: an encoder (OBS, ffmpeg) pushes RTMP to it and its stream is
/// published in the meeting's channel (or a sub-meeting's) under `uid` (`camera_big` and `mic`),
/// while it pushes.
public struct MeetingIngress: Codable, Sendable, Equatable {
    public var ingressId: String
    /// The channel uid its stream appears under (not a member of the meeting).
    public var uid: String
    /// The name to show on its tile.
    public var nickname: String
    /// The host or co-host who made it.
    public var createdBy: String
    /// The sub-meeting it publishes in; absent for the main meeting.
    public var subMeetingId: String?
    public init(ingressId: String, uid: String, nickname: String, createdBy: String, subMeetingId: String? = nil) {
        self.ingressId = ingressId; self.uid = uid; self.nickname = nickname; self.createdBy = createdBy
        self.subMeetingId = subMeetingId
    }
}

/// The state of one member in the meeting. A read-only snapshot; events say when it changed.
public struct MeetingUserInfo: Codable, Sendable, Equatable {
    public var uid: String
    public var nickname: String
    public var role: Role
    public var micState: MicState
    public var cameraState: CameraState
    /// 0 no sharing, 1 screen, 2 whiteboard (compare with `ShareType.rawValue`).
    public var shareState: Int
    /// Chat is disabled for this member individually.
    public var chatDisabled: Bool
    /// The member may not draw on the whiteboard.
    public var drawDisabled: Bool
    public var handRaised: Bool
    /// The media this member publishes, derived from its states.
    public var trackDescs: [TrackDesc]
    /// Unix milliseconds.
    public var enteredAt: Int64
    /// A training meeting's presenter: may open mic and camera (host and co-hosts always may).
    public var presenter: Bool
    /// The member publishes a view capture (`screen`) without a sharing state.
    public var viewCapture: Bool
    /// The sub-meeting the member is in now; `nil` in the main meeting.
    public var subMeetingId: String?

    public init(uid: String, nickname: String, role: Role, micState: MicState = .off, cameraState: CameraState = .off,
                shareState: Int = 0, chatDisabled: Bool = false, drawDisabled: Bool = false, handRaised: Bool = false,
                trackDescs: [TrackDesc] = [], enteredAt: Int64, presenter: Bool = false, viewCapture: Bool = false,
                subMeetingId: String? = nil) {
        self.uid = uid
        self.nickname = nickname
        self.role = role
        self.micState = micState
        self.cameraState = cameraState
        self.shareState = shareState
        self.chatDisabled = chatDisabled
        self.drawDisabled = drawDisabled
        self.handRaised = handRaised
        self.trackDescs = trackDescs
        self.enteredAt = enteredAt
        self.presenter = presenter
        self.viewCapture = viewCapture
        self.subMeetingId = subMeetingId
    }
}

/// One in-meeting chat message.
public struct ChatMessage: Codable, Sendable, Equatable {
    public var messageId: String
    public var from: String
    public var fromNickname: String
    /// The one recipient of a private message; `nil` for everyone.
    public var to: String?
    public var text: String
    /// Unix milliseconds.
    public var timestamp: Int64

    public init(messageId: String, from: String, fromNickname: String, to: String?, text: String, timestamp: Int64) {
        self.messageId = messageId
        self.from = from
        self.fromNickname = fromNickname
        self.to = to
        self.text = text
        self.timestamp = timestamp
    }
}
