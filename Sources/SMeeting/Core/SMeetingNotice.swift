import SMeetingProtocol

/// A delegate call `SMeetingRoomMachine` asks for, as a value (so its tests compare what the app
/// is told); the engine delivers it on the delegate queue (`deliver`).
enum SMeetingNotice: Sendable, Equatable {
    /// A member field whose change has a delegate method of its own (the wire name in `user_changed`'s `fields`).
    enum UserField: String, Sendable, Equatable {
        case mic = "mic_state", camera = "camera_state", share = "share_state", role
        case hand = "hand_raised", chatDisabled = "chat_disabled", drawDisabled = "draw_disabled", presenter
    }

    case userDidEnter(MeetingUserInfo)
    case userDidExit(MeetingUserInfo, ExitReason)
    case userInfoDidChange(MeetingUserInfo)
    case userFieldDidChange(UserField, MeetingUserInfo)
    case roomInfoDidChange(RoomInfo)
    case roomShareDidStart(uid: String, ShareType)
    case roomShareDidStop(uid: String)
    case chat(ChatMessage)
    case adminRequestsMic(adminUid: String)
    case adminRequestsCamera(adminUid: String)
    case wasKicked(by: String?)
    case meetingDidEnd(by: String?)
    case didExitRoom(ExitReason)
    case didEnterWaitingRoom(RoomInfo)
    case wasAdmitted(RoomInfo)
    case wasRemovedFromWaitingRoom(by: String?)
    case waitingUserDidEnter(WaitingUserInfo)
    case waitingUserDidLeave(WaitingUserInfo, WaitingLeaveReason)
    case subMeetingsDidChange([SubMeetingInfo])
    case didMoveToSubMeeting(SubMeetingInfo?)
    case subMeetingBroadcast(ChatMessage)
    case subMeetingHelp(uid: String, subMeetingId: String)
    case subMeetingsWillClose(countdown: Int)
    case subMeetingsDidClose
    case signInDidStart(SignInInfo)
    case signInDidProgress(SignInProgressEvent)
    case signInDidEnd(SignInResult)
    case rollCallDidStart(SignInInfo)
    case rollCallDidEnd(SignInResult)

    /// Calls the delegate method this notice stands for.
    func deliver(to d: SMeetingDelegate, from engine: SMeetingEngine) {
        switch self {
        case .userDidEnter(let user): d.meeting(engine, userDidEnter: user)
        case .userDidExit(let user, let reason): d.meeting(engine, userDidExit: user, reason: reason)
        case .userInfoDidChange(let user): d.meeting(engine, userInfoDidChange: user)
        case .userFieldDidChange(let field, let user):
            switch field {
            case .mic: d.meeting(engine, userMicStateDidChange: user)
            case .camera: d.meeting(engine, userCameraStateDidChange: user)
            case .share: d.meeting(engine, userShareStateDidChange: user)
            case .role: d.meeting(engine, userRoleDidChange: user)
            case .hand: d.meeting(engine, userHandDidChange: user)
            case .chatDisabled: d.meeting(engine, userChatDisabledDidChange: user)
            case .drawDisabled: d.meeting(engine, userDrawDisabledDidChange: user)
            case .presenter: d.meeting(engine, userPresenterDidChange: user)
            }
        case .roomInfoDidChange(let room): d.meeting(engine, roomInfoDidChange: room)
        case .roomShareDidStart(let uid, let kind): d.meeting(engine, roomShareDidStart: uid, shareType: kind)
        case .roomShareDidStop(let uid): d.meeting(engine, roomShareDidStop: uid)
        case .chat(let message): d.meeting(engine, didReceiveChatMessage: message)
        case .adminRequestsMic(let admin): d.meeting(engine, adminDidRequestOpenMic: admin)
        case .adminRequestsCamera(let admin): d.meeting(engine, adminDidRequestOpenCamera: admin)
        case .wasKicked(let by): d.meeting(engine, wasKickedBy: by)
        case .meetingDidEnd(let by): d.meetingDidEnd(engine, by: by)
        case .didExitRoom(let reason): d.meeting(engine, didExitRoom: reason)
        case .didEnterWaitingRoom(let room): d.meeting(engine, didEnterWaitingRoom: room)
        case .wasAdmitted(let room): d.meeting(engine, wasAdmittedFromWaitingRoom: room)
        case .wasRemovedFromWaitingRoom(let by): d.meeting(engine, wasRemovedFromWaitingRoomBy: by)
        case .waitingUserDidEnter(let user): d.meeting(engine, waitingUserDidEnter: user)
        case .waitingUserDidLeave(let user, let reason): d.meeting(engine, waitingUserDidLeave: user, reason: reason)
        case .subMeetingsDidChange(let list): d.meeting(engine, subMeetingsDidChange: list)
        case .didMoveToSubMeeting(let sub): d.meeting(engine, didMoveToSubMeeting: sub)
        case .subMeetingBroadcast(let message): d.meeting(engine, didReceiveSubMeetingBroadcast: message)
        case .subMeetingHelp(let uid, let sub): d.meeting(engine, subMeetingHelpRequestedBy: uid, subMeetingId: sub)
        case .subMeetingsWillClose(let countdown): d.meeting(engine, subMeetingsWillClose: countdown)
        case .subMeetingsDidClose: d.meetingSubMeetingsDidClose(engine)
        case .signInDidStart(let info): d.meeting(engine, signInDidStart: info)
        case .signInDidProgress(let e): d.meeting(engine, signInDidProgress: e.signInId, uid: e.uid, signed: e.signed, total: e.total)
        case .signInDidEnd(let result): d.meeting(engine, signInDidEnd: result)
        case .rollCallDidStart(let info): d.meeting(engine, rollCallDidStart: info)
        case .rollCallDidEnd(let result): d.meeting(engine, rollCallDidEnd: result)
        }
    }
}
