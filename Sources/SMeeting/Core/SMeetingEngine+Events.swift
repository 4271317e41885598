import SMeetingProtocol
import SRTC

/// The meeting events, on the reader thread in arrival order: each updates the snapshot, then
/// the observers are told (on the delegate queue).
extension SMeetingEngine {
    private enum Place { case none, entering, waiting, room }

    /// An event from the WebSocket: skipped when a resumed session sends it again.
    func receiveEvent(_ type: MeetingEventType, _ text: String) {
        guard acceptSequence((try? MeetingCodec.head(of: text))?.seq) else { return }
        handleEvent(type, text)
    }

    /// One meeting event: buffered while `enter_room` is answered, applied in the meeting or
    /// the waiting room, dropped elsewhere.
    func handleEvent(_ type: MeetingEventType, _ text: String) {
        let place = state.withLock { s -> Place in
            if s.room != nil { return .room }
            if s.waitingRoom != nil { return .waiting }
            if s.entering {
                s.buffered.append((type, text))
                return .entering
            }
            return .none
        }
        do {
            switch (place, type) {
            case (.none, _), (.entering, _): return
            case (_, .roomEnded):
                let e = try MeetingCodec.payload(ByEvent.self, from: text)
                tearDown(.ended) { $0.meetingDidEnd($1, by: e.by) }
            case (_, .disconnected):
                let e = try MeetingCodec.payload(DisconnectedEvent.self, from: text)
                tearDown(e.reason == "duplicate_login" ? .duplicateLogin : .disconnected)
            case (.waiting, _): try waitingRoomEvent(type, text)
            case (.room, _): try roomEvent(type, text)
            }
        } catch {
            // An event this SDK cannot read is skipped; the snapshot stays as it was.
        }
    }

    private func roomEvent(_ type: MeetingEventType, _ text: String) throws {
        switch type {
        case .userEntered:
            let e = try MeetingCodec.payload(UserEnteredEvent.self, from: text)
            let known = state.withLock { $0.users.updateValue(e.user, forKey: e.user.uid) != nil }
            // A member I still list enters again after its server node drained or died (`+Rejoin`):
            // it never left.
            if known { notify { $0.meeting($1, userInfoDidChange: e.user) } } else { notify { $0.meeting($1, userDidEnter: e.user) } }
            e2eeMemberEntered(e.user.uid)
        case .userExited:
            let e = try MeetingCodec.payload(UserExitedEvent.self, from: text)
            state.withLock { $0.users[e.user.uid] = nil }
            notify { $0.meeting($1, userDidExit: e.user, reason: e.reason) }
            e2eeMemberLeft(e.user.uid)
        case .userChanged:
            userChanged(try MeetingCodec.payload(UserChangedEvent.self, from: text))
        case .roomChanged:
            let e = try MeetingCodec.payload(RoomChangedEvent.self, from: text)
            let old = state.withLock { s -> RoomInfo? in defer { s.room = e.room }; return s.room }
            if e.fields.contains("sharing") {
                if let uid = old?.sharingUid, uid != e.room.sharingUid { notify { $0.meeting($1, roomShareDidStop: uid) } }
                if let uid = e.room.sharingUid, let kind = ShareType(rawValue: e.room.shareType), uid != old?.sharingUid {
                    notify { $0.meeting($1, roomShareDidStart: uid, shareType: kind) }
                }
            }
            notify { $0.meeting($1, roomInfoDidChange: e.room) }
            if old?.hostUid != e.room.hostUid { e2eeHostChanged() }
        case .chat:
            let e = try MeetingCodec.payload(ChatEvent.self, from: text)
            notify { $0.meeting($1, didReceiveChatMessage: e.message) }
        case .adminRequest:
            let e = try MeetingCodec.payload(AdminRequestEvent.self, from: text)
            switch e.kind {
            case .mic: notify { $0.meeting($1, adminDidRequestOpenMic: e.adminUid) }
            case .camera: notify { $0.meeting($1, adminDidRequestOpenCamera: e.adminUid) }
            }
        case .kicked:
            let e = try MeetingCodec.payload(ByEvent.self, from: text)
            tearDown(.kicked) { $0.meeting($1, wasKickedBy: e.by) }
        case .roomEnded, .disconnected:
            break  // above, for the waiting room too
        case .waitingEntered, .waitingLeft, .waitingList:
            try waitingListEvent(type, text)
        case .waitingAdmitted, .waitingRemoved:
            break  // for members who wait
        case .subMeetingsChanged, .subMeetingMoved, .subMeetingBroadcast, .subMeetingHelp, .subMeetingsClosing, .subMeetingsClosed:
            try subMeetingEvent(type, text)
        case .signInStarted, .signInProgress, .signInEnded, .rollCall, .rollCallResult:
            try signInEvent(type, text)
        }
    }

    private func userChanged(_ e: UserChangedEvent) {
        let (old, me) = state.withLock { s -> (MeetingUserInfo?, String?) in
            defer { s.users[e.user.uid] = e.user }
            return (s.users[e.user.uid], s.uid)
        }
        let user = e.user
        if user.uid == me, old?.subMeetingId == user.subMeetingId {
            // The host (or mute all, or a rule) closed my device: stop publishing it.
            if old?.micState == .on, user.micState == .off { Task { await self.unpublishMic() } }
            if old?.cameraState == .on, user.cameraState == .off { Task { await self.unpublishCamera() } }
            if old?.shareState == ShareType.screen.rawValue, user.shareState == 0 { Task { await self.unpublishScreen() } }
            if old?.viewCapture == true, !user.viewCapture { Task { await self.unpublishViewCapture() } }
        }
        for field in e.fields {
            switch field {
            case "mic_state": notify { $0.meeting($1, userMicStateDidChange: user) }
            case "camera_state": notify { $0.meeting($1, userCameraStateDidChange: user) }
            case "share_state": notify { $0.meeting($1, userShareStateDidChange: user) }
            case "role": notify { $0.meeting($1, userRoleDidChange: user) }
            case "hand_raised": notify { $0.meeting($1, userHandDidChange: user) }
            case "chat_disabled": notify { $0.meeting($1, userChatDisabledDidChange: user) }
            case "draw_disabled": notify { $0.meeting($1, userDrawDisabledDidChange: user) }
            case "presenter": notify { $0.meeting($1, userPresenterDidChange: user) }
            default: break
            }
        }
        notify { $0.meeting($1, userInfoDidChange: user) }
    }
}
