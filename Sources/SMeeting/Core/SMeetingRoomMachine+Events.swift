import SMeetingProtocol

/// The server's meeting events, in arrival order: held while `enter_room` is answered, applied in
/// the meeting or the waiting room, dropped elsewhere. Each updates the snapshot, then says what
/// the observers are told.
extension SMeetingRoomMachine {
    mutating func serverEvent(_ e: SMeetingServerEvent) -> [Action] {
        switch place {
        case .out:
            return []
        case .entering(let buffered):
            place = .entering(buffered: buffered + [e])
            return []
        case .waiting, .room:
            break
        }
        switch e {
        // Both where I wait and in the meeting.
        case .roomEnded(let by):
            return leave(.ended, cause: .meetingDidEnd(by: by))
        case .disconnected(let reason):
            return leave(reason == "duplicate_login" ? .duplicateLogin : .disconnected)
        default:
            return room != nil ? roomEvent(e) : waitingRoomEvent(e)
        }
    }

    /// What reaches me while I wait: admitted (the channel is joined, then I am told) or removed.
    private mutating func waitingRoomEvent(_ e: SMeetingServerEvent) -> [Action] {
        switch e {
        case .waitingAdmitted(let resp):
            guard let rtc = resp.rtc else { return [] }
            return applySnapshot(resp) + [.joinChannel(rtc, nickname: resp.me.nickname, .admitted(resp.room))]
        case .waitingRemoved(let by):
            return leave(.kicked, cause: .wasRemovedFromWaitingRoom(by: by))
        default:
            return []
        }
    }

    private mutating func roomEvent(_ e: SMeetingServerEvent) -> [Action] {
        switch e {
        case .userEntered(let user):
            // A member I still list enters again after its server node drained or died (a
            // rejoin): it never left.
            let known = users.updateValue(user, forKey: user.uid) != nil
            return [.notify(known ? .userInfoDidChange(user) : .userDidEnter(user)), .e2ee(.memberEntered(user.uid))]
        case .userExited(let user, let reason):
            users[user.uid] = nil
            return [.notify(.userDidExit(user, reason)), .e2ee(.memberLeft(user.uid))]
        case .userChanged(let user, let fields):
            return userChanged(user, fields: fields)
        case .roomChanged(let new, let fields):
            let old = room
            place = .room(new)
            var actions: [Action] = []
            if fields.contains("sharing") {
                if let uid = old?.sharingUid, uid != new.sharingUid { actions.append(.notify(.roomShareDidStop(uid: uid))) }
                if let uid = new.sharingUid, let kind = ShareType(rawValue: new.shareType), uid != old?.sharingUid {
                    actions.append(.notify(.roomShareDidStart(uid: uid, kind)))
                }
            }
            actions.append(.notify(.roomInfoDidChange(new)))
            if old?.hostUid != new.hostUid { actions.append(.e2ee(.hostChanged)) }
            return actions
        case .chat(let message):
            return [.notify(.chat(message))]
        case .adminRequest(let kind, let admin):
            return [.notify(kind == .mic ? .adminRequestsMic(adminUid: admin) : .adminRequestsCamera(adminUid: admin))]
        case .kicked(let by):
            return leave(.kicked, cause: .wasKicked(by: by))
        case .waitingEntered(let user):
            waitingUsers[user.uid] = user
            return [.notify(.waitingUserDidEnter(user))]
        case .waitingLeft(let user, let reason):
            waitingUsers[user.uid] = nil
            return [.notify(.waitingUserDidLeave(user, reason))]
        case .waitingList(let list):
            waitingUsers = Dictionary(list.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
            return []
        case .subMeetingsChanged(let list):
            subMeetings = list
            return [.notify(.subMeetingsDidChange(list))]
        case .subMeetingMoved(let moved):
            return [.joinChannel(moved.rtc, nickname: moverNickname, .moved(moved.subMeeting))]
        case .subMeetingBroadcast(let message):
            return [.notify(.subMeetingBroadcast(message))]
        case .subMeetingHelp(let uid, let sub):
            return [.notify(.subMeetingHelp(uid: uid, subMeetingId: sub))]
        case .subMeetingsClosing(let countdown):
            return [.notify(.subMeetingsWillClose(countdown: countdown))]
        case .subMeetingsClosed:
            return [.notify(.subMeetingsDidClose)]
        case .signInStarted(let info):
            signIn = info
            return [.notify(.signInDidStart(info))]
        case .signInProgress(let progress):
            return [.notify(.signInDidProgress(progress))]
        case .signInEnded(let result):
            if signIn?.signInId == result.signIn.signInId { signIn = nil }
            return [.notify(.signInDidEnd(result))]
        case .rollCall(let info):
            rollCalls[info.signInId] = info
            return [.notify(.rollCallDidStart(info))]
        case .rollCallResult(let result):
            rollCalls[result.signIn.signInId] = nil
            return [.notify(.rollCallDidEnd(result))]
        case .roomEnded, .disconnected, .waitingAdmitted, .waitingRemoved:
            return []  // above, or for members who wait
        }
    }

    /// A member changed: its own notices per field, then `userInfoDidChange`. When it is me and I
    /// stayed where I was, a device the host (or mute all, or a rule) closed is no longer published.
    private mutating func userChanged(_ user: MeetingUserInfo, fields: [String]) -> [Action] {
        let old = users.updateValue(user, forKey: user.uid)
        var actions: [Action] = []
        if user.uid == me?.uid, old?.subMeetingId == user.subMeetingId {
            if old?.micState == .on, user.micState == .off { actions.append(.unpublish(.mic)) }
            if old?.cameraState == .on, user.cameraState == .off { actions.append(.unpublish(.camera)) }
            if old?.shareState == ShareType.screen.rawValue, user.shareState == 0 { actions.append(.unpublish(.screen)) }
            if old?.viewCapture == true, !user.viewCapture { actions.append(.unpublish(.viewCapture)) }
        }
        for field in fields {
            if let known = SMeetingNotice.UserField(rawValue: field) { actions.append(.notify(.userFieldDidChange(known, user))) }
        }
        actions.append(.notify(.userInfoDidChange(user)))
        return actions
    }
}
