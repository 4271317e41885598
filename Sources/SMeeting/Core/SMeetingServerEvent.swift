import SMeetingProtocol

/// A meeting event as `SMeetingRoomMachine` takes it: decoded from the WebSocket's text by the
/// engine (docs/meeting-protocol.md, "Events"), so the machine and its tests see values, not JSON.
enum SMeetingServerEvent: Sendable, Equatable {
    case userEntered(MeetingUserInfo)
    case userExited(MeetingUserInfo, ExitReason)
    /// `fields` names what changed (`mic_state`, `role`, …).
    case userChanged(MeetingUserInfo, fields: [String])
    case roomChanged(RoomInfo, fields: [String])
    case chat(ChatMessage)
    case adminRequest(AdminRequestKind, adminUid: String)
    case kicked(by: String?)
    case roomEnded(by: String?)
    /// The server ends my session (`duplicate_login`, shutdown).
    case disconnected(reason: String)
    case waitingEntered(WaitingUserInfo)
    case waitingLeft(WaitingUserInfo, WaitingLeaveReason)
    case waitingList([WaitingUserInfo])
    /// A host let me in: the meeting's snapshot and its channel.
    case waitingAdmitted(EnterRoomResp)
    case waitingRemoved(by: String?)
    case subMeetingsChanged([SubMeetingInfo])
    /// Move my media to another channel (a sub-meeting, or back to the main meeting).
    case subMeetingMoved(SubMeetingMovedEvent)
    case subMeetingBroadcast(ChatMessage)
    case subMeetingHelp(uid: String, subMeetingId: String)
    case subMeetingsClosing(countdown: Int)
    case subMeetingsClosed
    case signInStarted(SignInInfo)
    case signInProgress(SignInProgressEvent)
    case signInEnded(SignInResult)
    case rollCall(SignInInfo)
    case rollCallResult(SignInResult)

    /// Decodes the payload of a `type` event; throws for one this SDK cannot read (it is skipped).
    init(_ type: MeetingEventType, _ text: String) throws {
        func payload<T: Decodable>(_ kind: T.Type) throws -> T { try MeetingCodec.payload(T.self, from: text) }
        switch type {
        case .userEntered: self = .userEntered(try payload(UserEnteredEvent.self).user)
        case .userExited:
            let e = try payload(UserExitedEvent.self)
            self = .userExited(e.user, e.reason)
        case .userChanged:
            let e = try payload(UserChangedEvent.self)
            self = .userChanged(e.user, fields: e.fields)
        case .roomChanged:
            let e = try payload(RoomChangedEvent.self)
            self = .roomChanged(e.room, fields: e.fields)
        case .chat: self = .chat(try payload(ChatEvent.self).message)
        case .adminRequest:
            let e = try payload(AdminRequestEvent.self)
            self = .adminRequest(e.kind, adminUid: e.adminUid)
        case .kicked: self = .kicked(by: try payload(ByEvent.self).by)
        case .roomEnded: self = .roomEnded(by: try payload(ByEvent.self).by)
        case .disconnected: self = .disconnected(reason: try payload(DisconnectedEvent.self).reason)
        case .waitingEntered: self = .waitingEntered(try payload(WaitingEnteredEvent.self).user)
        case .waitingLeft:
            let e = try payload(WaitingLeftEvent.self)
            self = .waitingLeft(e.user, e.reason)
        case .waitingList: self = .waitingList(try payload(WaitingListEvent.self).users)
        case .waitingAdmitted: self = .waitingAdmitted(try payload(EnterRoomResp.self))
        case .waitingRemoved: self = .waitingRemoved(by: try payload(ByEvent.self).by)
        case .subMeetingsChanged: self = .subMeetingsChanged(try payload(SubMeetingsEvent.self).subMeetings)
        case .subMeetingMoved: self = .subMeetingMoved(try payload(SubMeetingMovedEvent.self))
        case .subMeetingBroadcast: self = .subMeetingBroadcast(try payload(ChatEvent.self).message)
        case .subMeetingHelp:
            let e = try payload(SubMeetingHelpEvent.self)
            self = .subMeetingHelp(uid: e.uid, subMeetingId: e.subMeetingId)
        case .subMeetingsClosing: self = .subMeetingsClosing(countdown: try payload(SubMeetingsClosingEvent.self).countdown)
        case .subMeetingsClosed: self = .subMeetingsClosed
        case .signInStarted: self = .signInStarted(try payload(SignInStartedEvent.self).signIn)
        case .signInProgress: self = .signInProgress(try payload(SignInProgressEvent.self))
        case .signInEnded: self = .signInEnded(try payload(SignInEndedEvent.self).result)
        case .rollCall: self = .rollCall(try payload(SignInStartedEvent.self).signIn)
        case .rollCallResult: self = .rollCallResult(try payload(SignInEndedEvent.self).result)
        }
    }
}
