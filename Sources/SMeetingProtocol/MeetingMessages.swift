/// The request types of the meeting WebSocket (docs/meeting-protocol.md).
public enum MeetingRequestType: String, Codable, Sendable, CaseIterable {
    case login, ping, logout
    case createRoom = "create_room", updateRoom = "update_room", cancelRoom = "cancel_room", detailRoom = "detail_room"
    case attendeeRoom = "attendee_room", attendedRoom = "attended_room"
    case enterRoom = "enter_room", exitRoom = "exit_room"
    case requestOpenMic = "request_open_mic", closeMic = "close_mic"
    case requestOpenCamera = "request_open_camera", closeCamera = "close_camera"
    case requestShare = "request_share", stopShare = "stop_share"
    case raiseHand = "raise_hand", lowerHand = "lower_hand"
    case sendChat = "send_chat"
    case adminMuteAll = "admin_mute_all", adminUnmuteAll = "admin_unmute_all"
    case adminCameraOffAll = "admin_camera_off_all", adminCameraOnAll = "admin_camera_on_all"
    case adminLockRoom = "admin_lock_room", adminDisableShare = "admin_disable_share"
    case adminKick = "admin_kick", adminSetCoHost = "admin_set_co_host", adminTransferHost = "admin_transfer_host"
    case adminRequestOpenMic = "admin_request_open_mic", adminRequestOpenCamera = "admin_request_open_camera"
    case adminCloseMic = "admin_close_mic", adminCloseCamera = "admin_close_camera", adminStopShare = "admin_stop_share"
    case adminDisableChat = "admin_disable_chat", adminLowerHand = "admin_lower_hand"
    case adminEndRoom = "admin_end_room"
    // Waiting room
    case adminSetWaitingRoom = "admin_set_waiting_room", adminAdmit = "admin_admit", adminAdmitAll = "admin_admit_all"
    case adminRemoveWaiting = "admin_remove_waiting"
    // Training mode, whiteboard, view capture
    case adminSetPresenter = "admin_set_presenter", adminApproveHand = "admin_approve_hand", adminDisableDraw = "admin_disable_draw"
    case startViewCapture = "start_view_capture", stopViewCapture = "stop_view_capture"
    // Sub-meetings
    case adminCreateSubMeetings = "admin_create_sub_meetings", adminAssignSubMeeting = "admin_assign_sub_meeting"
    case adminAssignSubMeetingsRandomly = "admin_assign_sub_meetings_randomly", adminOpenSubMeetings = "admin_open_sub_meetings"
    case adminBroadcastSubMeetings = "admin_broadcast_sub_meetings", adminVisitSubMeeting = "admin_visit_sub_meeting"
    case requestSubMeetingHelp = "request_sub_meeting_help", adminCloseSubMeetings = "admin_close_sub_meetings"
    // Sign-in and roll call
    case adminStartSignIn = "admin_start_sign_in", signIn = "sign_in", adminEndSignIn = "admin_end_sign_in"
    case adminRollCall = "admin_roll_call", answerRollCall = "answer_roll_call", signInResults = "sign_in_results"
    // Live captions (docs/captions.md)
    case adminStartCaptions = "admin_start_captions", adminStopCaptions = "admin_stop_captions"
    // Ingress: an encoder's RTMP stream in the meeting (docs/ingress.md)
    case adminCreateIngress = "admin_create_ingress", adminDeleteIngress = "admin_delete_ingress"
}

/// The event types the server sends.
public enum MeetingEventType: String, Codable, Sendable, CaseIterable {
    case userEntered = "user_entered", userExited = "user_exited", userChanged = "user_changed"
    case roomChanged = "room_changed", chat, adminRequest = "admin_request"
    case kicked, roomEnded = "room_ended", disconnected
    // Waiting room
    case waitingEntered = "waiting_entered", waitingLeft = "waiting_left", waitingList = "waiting_list"
    case waitingAdmitted = "waiting_admitted", waitingRemoved = "waiting_removed"
    // Sub-meetings
    case subMeetingsChanged = "sub_meetings_changed", subMeetingMoved = "sub_meeting_moved"
    case subMeetingBroadcast = "sub_meeting_broadcast", subMeetingHelp = "sub_meeting_help"
    case subMeetingsClosing = "sub_meetings_closing", subMeetingsClosed = "sub_meetings_closed"
    // Sign-in and roll call
    case signInStarted = "sign_in_started", signInProgress = "sign_in_progress", signInEnded = "sign_in_ended"
    case rollCall = "roll_call", rollCallResult = "roll_call_result"
}

// MARK: - Request payloads

/// `login`: the member token from `/stm/srvapi/v1/member/grant`. To resume a session whose
/// connection dropped, add its `session_id` and the `seq` of the last event handled.
public struct LoginReq: Codable, Sendable {
    public var token: String
    public var sessionId: String?
    public var lastSeq: Int?
    public init(token: String, sessionId: String? = nil, lastSeq: Int? = nil) {
        self.token = token; self.sessionId = sessionId; self.lastSeq = lastSeq
    }
}

/// `login` answer. `resumed` says whether the session `session_id` named was resumed (the
/// events it missed follow, in order); `rejoin` (only with `resumed: false`) that the session was
/// lost with the server node that ran it (it drained or died), not ended: a new session started,
/// and a client that was in a meeting (or its waiting room) enters it again, where it gets its
/// place back. `reconnect_grace_seconds` is how long the server keeps a session whose connection
/// dropped.
public struct LoginResp: Codable, Sendable, Equatable {
    public var uid: String
    public var nickname: String
    public var serverTime: Int64
    public var sessionId: String
    public var resumed: Bool
    /// `true`, or absent.
    public var rejoin: Bool?
    public var reconnectGraceSeconds: Int
    public init(uid: String, nickname: String, serverTime: Int64, sessionId: String, resumed: Bool = false, rejoin: Bool? = nil,
                reconnectGraceSeconds: Int) {
        self.uid = uid; self.nickname = nickname; self.serverTime = serverTime
        self.sessionId = sessionId; self.resumed = resumed; self.rejoin = rejoin; self.reconnectGraceSeconds = reconnectGraceSeconds
    }
}

/// No fields.
public struct EmptyPayload: Codable, Sendable, Equatable { public init() {} }

/// `update_room`.
public struct UpdateRoomReq: Codable, Sendable {
    public var meetingId: String
    public var update: MeetingUpdateReq
    public init(meetingId: String, update: MeetingUpdateReq) { self.meetingId = meetingId; self.update = update }
}

/// `cancel_room`, `detail_room`: a meeting by id or by room number.
public struct MeetingRef: Codable, Sendable {
    public var meetingId: String?
    public var roomNo: String?
    public init(meetingId: String? = nil, roomNo: String? = nil) { self.meetingId = meetingId; self.roomNo = roomNo }
}

/// `attendee_room`, `attended_room`: pages count from 1; at most 100 a page (20 by default).
public struct PageReq: Codable, Sendable {
    public var page: Int
    public var pageSize: Int?
    public init(page: Int, pageSize: Int? = nil) { self.page = page; self.pageSize = pageSize }
}

/// The SRTC channel of the meeting and a token for it, signed by the server with the app's key.
public struct RTCGrant: Codable, Sendable, Equatable {
    public var channel: String
    public var token: String
    public var expireAt: Int64
    public init(channel: String, token: String, expireAt: Int64) { self.channel = channel; self.token = token; self.expireAt = expireAt }
}

/// `enter_room` answer (and `waiting_admitted`'s data): the room, myself, everyone (me
/// included), the SRTC channel grant, and for hosts and co-hosts the waiting room and the
/// sub-meetings. With `waiting: true` I wait to be admitted: `users` is empty and `rtc` absent.
public struct EnterRoomResp: Codable, Sendable, Equatable {
    public var room: RoomInfo
    public var me: MeetingUserInfo
    public var users: [MeetingUserInfo]
    public var rtc: RTCGrant?
    public var waiting: Bool
    public var waitingUsers: [WaitingUserInfo]
    public var subMeetings: [SubMeetingInfo]
    public init(room: RoomInfo, me: MeetingUserInfo, users: [MeetingUserInfo], rtc: RTCGrant?, waiting: Bool = false,
                waitingUsers: [WaitingUserInfo] = [], subMeetings: [SubMeetingInfo] = []) {
        self.room = room; self.me = me; self.users = users; self.rtc = rtc
        self.waiting = waiting; self.waitingUsers = waitingUsers; self.subMeetings = subMeetings
    }
}

/// `request_open_mic`, `request_open_camera`: on my own, or confirming a host's request.
public struct OpenReq: Codable, Sendable {
    public var byAdmin: Bool?
    public var adminUid: String?
    public init(byAdmin: Bool? = nil, adminUid: String? = nil) { self.byAdmin = byAdmin; self.adminUid = adminUid }
}

/// `request_share`.
public struct ShareReq: Codable, Sendable {
    public var shareType: ShareType
    public var byAdmin: Bool?
    public var adminUid: String?
    public init(shareType: ShareType, byAdmin: Bool? = nil, adminUid: String? = nil) {
        self.shareType = shareType; self.byAdmin = byAdmin; self.adminUid = adminUid
    }
}

/// `send_chat`: to everyone, or to the one member `to`. `text` is 1 to 4096 characters.
public struct ChatReq: Codable, Sendable {
    public var text: String
    public var to: String?
    public init(text: String, to: String? = nil) { self.text = text; self.to = to }
}

/// `admin_mute_all` (`allow`: members may unmute themselves), `admin_camera_off_all` (`allow`:
/// members may open their cameras themselves), `admin_lock_room` / `admin_disable_share`
/// (`allow` = locked / disabled).
public struct PolicyReq: Codable, Sendable {
    public var allow: Bool
    public init(allow: Bool) { self.allow = allow }
}

/// `admin_start_captions`: live captions in the meeting's channel (docs/captions.md).
public struct CaptionsReq: Codable, Sendable {
    /// BCP 47 (`en-US`, the default).
    public var language: String?
    public init(language: String? = nil) { self.language = language }
}

/// `admin_create_ingress`: an RTMP ingress into the meeting (docs/meeting-protocol.md, "Ingress").
public struct CreateIngressReq: Codable, Sendable {
    /// The name its tile shows (1–64 characters; `RTMP stream` when absent).
    public var nickname: String?
    /// The sub-meeting (breakout) whose channel it publishes in; the main meeting when absent.
    public var subMeetingId: String?
    public init(nickname: String? = nil, subMeetingId: String? = nil) { self.nickname = nickname; self.subMeetingId = subMeetingId }
}

/// `admin_create_ingress` answer: the ingress as everyone sees it in `RoomInfo.ingresses`, and
/// where its encoder pushes (for the host only: the stream key is its secret).
public struct CreateIngressResp: Codable, Sendable, Equatable {
    public var ingress: MeetingIngress
    /// `rtmp://host:port/live/<stream_key>`.
    public var url: String
    public var streamKey: String
    public init(ingress: MeetingIngress, url: String, streamKey: String) {
        self.ingress = ingress; self.url = url; self.streamKey = streamKey
    }
}

/// `admin_delete_ingress`.
public struct DeleteIngressReq: Codable, Sendable {
    public var ingressId: String
    public init(ingressId: String) { self.ingressId = ingressId }
}

/// The admin commands aimed at one member; `enable` for `admin_set_co_host`,
/// `admin_disable_chat`, `admin_disable_draw` and `admin_set_presenter` (true = co-host / chat
/// disabled / drawing disabled / presenter).
public struct TargetReq: Codable, Sendable {
    public var uid: String
    public var enable: Bool?
    public init(uid: String, enable: Bool? = nil) { self.uid = uid; self.enable = enable }
}

/// `ping` answer.
public struct PongResp: Codable, Sendable { public var serverTime: Int64; public init(serverTime: Int64) { self.serverTime = serverTime } }

// MARK: - Event payloads

/// `user_entered`.
public struct UserEnteredEvent: Codable, Sendable { public var user: MeetingUserInfo; public init(user: MeetingUserInfo) { self.user = user } }

/// `user_exited`.
public struct UserExitedEvent: Codable, Sendable {
    public var user: MeetingUserInfo
    public var reason: ExitReason
    public init(user: MeetingUserInfo, reason: ExitReason) { self.user = user; self.reason = reason }
}

/// `user_changed`: `fields` names what changed (`mic_state`, `camera_state`, `share_state`,
/// `role`, `hand_raised`, `chat_disabled`); `by` is the admin who changed it, if not the member.
public struct UserChangedEvent: Codable, Sendable {
    public var user: MeetingUserInfo
    public var fields: [String]
    public var by: String?
    public init(user: MeetingUserInfo, fields: [String], by: String? = nil) { self.user = user; self.fields = fields; self.by = by }
}

/// `room_changed`: `fields` names what changed (`mute_all`, `camera_off_all`, `locked`,
/// `share_disabled`, `sharing`, `host_uid`, `title`...).
public struct RoomChangedEvent: Codable, Sendable {
    public var room: RoomInfo
    public var fields: [String]
    public var by: String?
    public init(room: RoomInfo, fields: [String], by: String? = nil) { self.room = room; self.fields = fields; self.by = by }
}

/// `chat`.
public struct ChatEvent: Codable, Sendable { public var message: ChatMessage; public init(message: ChatMessage) { self.message = message } }

/// `admin_request`: a host asks me to open my mic or camera; confirm with `by_admin`.
public struct AdminRequestEvent: Codable, Sendable {
    public var kind: AdminRequestKind
    public var adminUid: String
    public init(kind: AdminRequestKind, adminUid: String) { self.kind = kind; self.adminUid = adminUid }
}

/// `kicked` (I was removed), `room_ended` (the meeting ended for everyone): `by` is the admin's
/// uid, or `nil` when the backend did it.
public struct ByEvent: Codable, Sendable { public var by: String?; public init(by: String?) { self.by = by } }

/// `disconnected`: the server ends my meeting session (duplicate login, shutdown).
public struct DisconnectedEvent: Codable, Sendable {
    public var reason: String
    public var message: String
    public init(reason: String, message: String) { self.reason = reason; self.message = message }
}
