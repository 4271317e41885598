import SMeetingProtocol

/// Every meeting event. Each method has a default empty implementation; events are delivered on
/// the engine's delegate queue (the main queue by default), in the order they happened.
/// Read `getRoomInfo()` / `getUsersInfo()` again in a callback rather than keeping old snapshots.
public protocol SMeetingDelegate: SMeetingIMEvents {
    // MARK: Connection
    /// The meeting connection was lost for good: it dropped and could not be resumed within the
    /// server's grace period (the login ended; a meeting in progress was exited first). A drop
    /// that is resumed in time fires nothing.
    func meetingConnectionDidLose(_ meeting: SMeetingEngine)
    /// The meeting connection dropped and the SDK is resuming the session (`isReconnecting` is
    /// true until `meetingDidReconnect` or `meetingConnectionDidLose`).
    func meetingIsReconnecting(_ meeting: SMeetingEngine)
    /// The session resumed after a drop (or, on a cluster, was replaced and the meeting entered
    /// again): the events missed meanwhile follow, in order.
    func meetingDidReconnect(_ meeting: SMeetingEngine)

    // MARK: Members
    /// A member entered (not sent for myself).
    func meeting(_ meeting: SMeetingEngine, userDidEnter user: MeetingUserInfo)
    /// A member exited, was removed, or lost its connection.
    func meeting(_ meeting: SMeetingEngine, userDidExit user: MeetingUserInfo, reason: ExitReason)
    /// Any change of a member's state (after the specific callbacks below).
    func meeting(_ meeting: SMeetingEngine, userInfoDidChange user: MeetingUserInfo)
    func meeting(_ meeting: SMeetingEngine, userMicStateDidChange user: MeetingUserInfo)
    func meeting(_ meeting: SMeetingEngine, userCameraStateDidChange user: MeetingUserInfo)
    func meeting(_ meeting: SMeetingEngine, userShareStateDidChange user: MeetingUserInfo)
    /// Host transfer, co-host set or removed.
    func meeting(_ meeting: SMeetingEngine, userRoleDidChange user: MeetingUserInfo)
    /// A hand raised or lowered (`user.handRaised`).
    func meeting(_ meeting: SMeetingEngine, userHandDidChange user: MeetingUserInfo)
    /// Chat disabled or enabled for one member (`user.chatDisabled`).
    func meeting(_ meeting: SMeetingEngine, userChatDisabledDidChange user: MeetingUserInfo)
    /// Drawing on the whiteboard disabled or enabled for one member (`user.drawDisabled`).
    func meeting(_ meeting: SMeetingEngine, userDrawDisabledDidChange user: MeetingUserInfo)
    /// A training meeting's presenter named or taken back (`user.presenter`).
    func meeting(_ meeting: SMeetingEngine, userPresenterDidChange user: MeetingUserInfo)

    // MARK: Room
    /// Room state changed: mute all, camera off for everyone, lock, sharing, host, title.
    func meeting(_ meeting: SMeetingEngine, roomInfoDidChange room: RoomInfo)
    /// An end-to-end encrypted meeting's key changed (at entry, and whenever members come or go):
    /// its epoch and the verification code members compare (docs/e2ee.md, "E2EE meetings").
    func meeting(_ meeting: SMeetingEngine, e2eeKeyDidChange status: SMeetingE2EEStatus)
    /// A key-exchange message of an E2EE meeting was refused (`reason` names why: docs/e2ee.md,
    /// "E2EE meetings"); it changed nothing.
    func meeting(_ meeting: SMeetingEngine, e2eeMessageWasRefused from: String, reason: String)
    /// Someone started sharing (`.whiteBoard` carries no media).
    func meeting(_ meeting: SMeetingEngine, roomShareDidStart uid: String, shareType: ShareType)
    /// Sharing stopped.
    func meeting(_ meeting: SMeetingEngine, roomShareDidStop uid: String)
    /// My broadcast extension started broadcasting (after `prepareBroadcastShare`): the moment
    /// to call `publishBroadcastShare()`.
    func shareBroadcastDidStart(_ meeting: SMeetingEngine)
    /// My broadcast ended (the user stopped it from the system UI, or the app did; `reason` as
    /// SRTC's `screenBroadcastDidFinish`). A published broadcast share ends with it.
    func shareBroadcastDidFinish(_ meeting: SMeetingEngine, reason: String)

    // MARK: Messages and host commands
    func meeting(_ meeting: SMeetingEngine, didReceiveChatMessage message: ChatMessage)
    /// A host or co-host asks me to open my microphone: call `requestOpenMic(byAdmin: true, adminUid:)`.
    func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenMic adminUid: String)
    /// A host or co-host asks me to open my camera: call `requestOpenCamera(byAdmin: true, adminUid:)`.
    func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenCamera adminUid: String)
    /// I was removed from the meeting (`adminUid` is nil when the backend did it).
    func meeting(_ meeting: SMeetingEngine, wasKickedBy adminUid: String?)
    /// The meeting ended for everyone.
    func meetingDidEnd(_ meeting: SMeetingEngine, by adminUid: String?)
    /// I am out of the meeting, for whatever `reason` (after `exitRoom()` too).
    func meeting(_ meeting: SMeetingEngine, didExitRoom reason: ExitReason)

    // MARK: Waiting room
    /// `enterRoom` put me in the waiting room of `room`.
    func meeting(_ meeting: SMeetingEngine, didEnterWaitingRoom room: RoomInfo)
    /// A host let me in: I am in the meeting and its channel.
    func meeting(_ meeting: SMeetingEngine, wasAdmittedFromWaitingRoom room: RoomInfo)
    /// A host (nil: the backend) sent me away from the waiting room.
    func meeting(_ meeting: SMeetingEngine, wasRemovedFromWaitingRoomBy adminUid: String?)
    /// Hosts and co-hosts: someone waits to be admitted.
    func meeting(_ meeting: SMeetingEngine, waitingUserDidEnter user: WaitingUserInfo)
    /// Hosts and co-hosts: someone left the waiting room (admitted, removed, gave up).
    func meeting(_ meeting: SMeetingEngine, waitingUserDidLeave user: WaitingUserInfo, reason: WaitingLeaveReason)

    // MARK: Sub-meetings
    /// The sub-meeting list changed (created, assigned, opened, closing, closed).
    func meeting(_ meeting: SMeetingEngine, subMeetingsDidChange subMeetings: [SubMeetingInfo])
    /// I moved into a sub-meeting (`nil`: back in the main meeting); its channel is joined.
    func meeting(_ meeting: SMeetingEngine, didMoveToSubMeeting subMeeting: SubMeetingInfo?)
    /// A host's message to every sub-meeting.
    func meeting(_ meeting: SMeetingEngine, didReceiveSubMeetingBroadcast message: ChatMessage)
    /// Hosts and co-hosts: a member asks for help from a sub-meeting.
    func meeting(_ meeting: SMeetingEngine, subMeetingHelpRequestedBy uid: String, subMeetingId: String)
    /// The sub-meetings close in `countdown` seconds.
    func meeting(_ meeting: SMeetingEngine, subMeetingsWillClose countdown: Int)
    /// The sub-meetings closed: everyone is back in the main meeting.
    func meetingSubMeetingsDidClose(_ meeting: SMeetingEngine)

    // MARK: Sign-in and roll call
    /// A sign-in started: sign in with `signIn()` before `info.deadline`.
    func meeting(_ meeting: SMeetingEngine, signInDidStart info: SignInInfo)
    /// Hosts and co-hosts: `uid` signed in; `signed` of `total` so far.
    func meeting(_ meeting: SMeetingEngine, signInDidProgress signInId: String, uid: String, signed: Int, total: Int)
    /// A sign-in ended (hosts see every record, members their own).
    func meeting(_ meeting: SMeetingEngine, signInDidEnd result: SignInResult)
    /// A roll call started (I am called, or I am a host): answer with `answerRollCall(rollCallId:)`.
    func meeting(_ meeting: SMeetingEngine, rollCallDidStart info: SignInInfo)
    /// A roll call ended: answered, or its time ran out.
    func meeting(_ meeting: SMeetingEngine, rollCallDidEnd result: SignInResult)
}

extension SMeetingDelegate {
    public func meetingConnectionDidLose(_ meeting: SMeetingEngine) {}
    public func meetingIsReconnecting(_ meeting: SMeetingEngine) {}
    public func meetingDidReconnect(_ meeting: SMeetingEngine) {}
    public func meeting(_ meeting: SMeetingEngine, userDidEnter user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userDidExit user: MeetingUserInfo, reason: ExitReason) {}
    public func meeting(_ meeting: SMeetingEngine, userInfoDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userMicStateDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userCameraStateDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userShareStateDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userRoleDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userHandDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userChatDisabledDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, roomInfoDidChange room: RoomInfo) {}
    public func meeting(_ meeting: SMeetingEngine, e2eeKeyDidChange status: SMeetingE2EEStatus) {}
    public func meeting(_ meeting: SMeetingEngine, e2eeMessageWasRefused from: String, reason: String) {}
    public func meeting(_ meeting: SMeetingEngine, roomShareDidStart uid: String, shareType: ShareType) {}
    public func meeting(_ meeting: SMeetingEngine, roomShareDidStop uid: String) {}
    public func shareBroadcastDidStart(_ meeting: SMeetingEngine) {}
    public func shareBroadcastDidFinish(_ meeting: SMeetingEngine, reason: String) {}
    public func meeting(_ meeting: SMeetingEngine, didReceiveChatMessage message: ChatMessage) {}
    public func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenMic adminUid: String) {}
    public func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenCamera adminUid: String) {}
    public func meeting(_ meeting: SMeetingEngine, wasKickedBy adminUid: String?) {}
    public func meetingDidEnd(_ meeting: SMeetingEngine, by adminUid: String?) {}
    public func meeting(_ meeting: SMeetingEngine, didExitRoom reason: ExitReason) {}
    public func meeting(_ meeting: SMeetingEngine, userDrawDisabledDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, userPresenterDidChange user: MeetingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, didEnterWaitingRoom room: RoomInfo) {}
    public func meeting(_ meeting: SMeetingEngine, wasAdmittedFromWaitingRoom room: RoomInfo) {}
    public func meeting(_ meeting: SMeetingEngine, wasRemovedFromWaitingRoomBy adminUid: String?) {}
    public func meeting(_ meeting: SMeetingEngine, waitingUserDidEnter user: WaitingUserInfo) {}
    public func meeting(_ meeting: SMeetingEngine, waitingUserDidLeave user: WaitingUserInfo, reason: WaitingLeaveReason) {}
    public func meeting(_ meeting: SMeetingEngine, subMeetingsDidChange subMeetings: [SubMeetingInfo]) {}
    public func meeting(_ meeting: SMeetingEngine, didMoveToSubMeeting subMeeting: SubMeetingInfo?) {}
    public func meeting(_ meeting: SMeetingEngine, didReceiveSubMeetingBroadcast message: ChatMessage) {}
    public func meeting(_ meeting: SMeetingEngine, subMeetingHelpRequestedBy uid: String, subMeetingId: String) {}
    public func meeting(_ meeting: SMeetingEngine, subMeetingsWillClose countdown: Int) {}
    public func meetingSubMeetingsDidClose(_ meeting: SMeetingEngine) {}
    public func meeting(_ meeting: SMeetingEngine, signInDidStart info: SignInInfo) {}
    public func meeting(_ meeting: SMeetingEngine, signInDidProgress signInId: String, uid: String, signed: Int, total: Int) {}
    public func meeting(_ meeting: SMeetingEngine, signInDidEnd result: SignInResult) {}
    public func meeting(_ meeting: SMeetingEngine, rollCallDidStart info: SignInInfo) {}
    public func meeting(_ meeting: SMeetingEngine, rollCallDidEnd result: SignInResult) {}
}
