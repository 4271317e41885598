import SMeetingProtocol

/// Every meeting event. Each method has a default empty implementation; events are delivered on
/// the engine's delegate queue (the main queue by default), in the order they happened.
/// Read `getRoomInfo()` / `getUsersInfo()` again in a callback rather than keeping old snapshots.
public protocol SMeetingDelegate: SMeetingIMEvents {
    // MARK: Connection
    /// The meeting connection was lost (the login ended; a meeting in progress was exited first).
    func meetingConnectionDidLose(_ meeting: SMeetingEngine)

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

    // MARK: Room
    /// Room state changed: mute all, camera off for everyone, lock, sharing, host, title.
    func meeting(_ meeting: SMeetingEngine, roomInfoDidChange room: RoomInfo)
    /// Someone started sharing (`.whiteBoard` carries no media).
    func meeting(_ meeting: SMeetingEngine, roomShareDidStart uid: String, shareType: ShareType)
    /// Sharing stopped.
    func meeting(_ meeting: SMeetingEngine, roomShareDidStop uid: String)

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
}

extension SMeetingDelegate {
    public func meetingConnectionDidLose(_ meeting: SMeetingEngine) {}
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
    public func meeting(_ meeting: SMeetingEngine, roomShareDidStart uid: String, shareType: ShareType) {}
    public func meeting(_ meeting: SMeetingEngine, roomShareDidStop uid: String) {}
    public func meeting(_ meeting: SMeetingEngine, didReceiveChatMessage message: ChatMessage) {}
    public func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenMic adminUid: String) {}
    public func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenCamera adminUid: String) {}
    public func meeting(_ meeting: SMeetingEngine, wasKickedBy adminUid: String?) {}
    public func meetingDidEnd(_ meeting: SMeetingEngine, by adminUid: String?) {}
    public func meeting(_ meeting: SMeetingEngine, didExitRoom reason: ExitReason) {}
}
