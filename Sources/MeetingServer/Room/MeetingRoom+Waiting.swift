import SMeetingProtocol

/// The waiting room: with it on, members who enter (not the host, the meeting's creator or
/// co-hosts) wait without a channel token until a host or co-host (or the backend) admits or
/// removes them. A locked room refuses before the waiting room.
extension MeetingRoom {
    /// Everyone waiting, longest first: those of the room's previous node not back yet too (the
    /// hosts keep seeing them while their sessions move, `+Record`).
    var waitingList: [WaitingUserInfo] {
        (waiting.values.map(\.info) + returningWaiters.values).sorted { ($0.since, $0.uid) < ($1.since, $1.uid) }
    }

    /// Puts `uid` in the waiting room (an older waiting session of the same uid is replaced). One
    /// that waited on the room's previous node keeps its place, and the hosts, who list it
    /// already, are not told again.
    func wait(uid: String, nickname: String, connection: MeetingConnection) -> EnterRoomResp {
        if let old = waiting[uid] {
            old.connection.send(.disconnected, DisconnectedEvent(reason: "duplicate_login", message: "entered from another session"))
            leaveWaiting(uid, reason: .left, by: nil, notifyRemoved: true, closeIfEmpty: false)
        }
        let waited = returningWaiters.removeValue(forKey: uid)
        let info = WaitingUserInfo(uid: uid, nickname: nickname, since: waited?.since ?? clock.now())
        waiting[uid] = Waiter(info: info, connection: connection)
        if waited == nil { broadcastAdmins(.waitingEntered, WaitingEnteredEvent(user: info)) } else { recordChanged() }
        return EnterRoomResp(room: roomSnapshot, me: MeetingUserInfo(uid: uid, nickname: nickname, role: .member, enteredAt: info.since),
                             users: [], rtc: nil, waiting: true)
    }

    /// Takes `uid` out of the waiting room and tells hosts and co-hosts why.
    func leaveWaiting(_ uid: String, reason: WaitingLeaveReason, by admin: String?, notifyRemoved: Bool = false, closeIfEmpty: Bool = true) {
        guard let w = waiting.removeValue(forKey: uid) else { return }
        if notifyRemoved { w.connection.removed(from: self) }
        broadcastAdmins(.waitingLeft, WaitingLeftEvent(user: w.info, reason: reason, by: admin))
        if closeIfEmpty { closeIfDeserted() }
    }

    /// The waiter `uid`, or `not_found`; `wrong_state` while it waited on the room's previous node
    /// and is not back yet (it can be admitted or removed once it is).
    private func waiter(_ uid: String) throws(MeetingErrorBody) -> Waiter {
        guard let w = waiting[uid] else {
            if returningWaiters[uid] != nil {
                throw MeetingErrorBody(.wrongState, "\(uid) is reconnecting to the waiting room after the meeting moved; retry once it is back")
            }
            throw MeetingErrorBody(.notFound, "\(uid) is not in the waiting room")
        }
        return w
    }

    /// Lets a waiting member in: it gets `waiting_admitted` with what `enter_room` answers.
    /// `admin` is nil when the backend does it.
    func admit(_ targetUid: String, by admin: String?) throws(MeetingErrorBody) {
        if let admin { _ = try self.admin(admin) }
        let w = try waiter(targetUid)
        let resp = try admitMember(uid: targetUid, nickname: w.info.nickname, connection: w.connection)
        waiting[targetUid] = nil
        broadcastAdmins(.waitingLeft, WaitingLeftEvent(user: w.info, reason: .admitted, by: admin))
        w.connection.send(.waitingAdmitted, resp)
    }

    /// Lets everyone in (as many as the meeting holds); returns who was admitted.
    @discardableResult
    func admitEveryone(by admin: String?) -> [WaitingUserInfo] {
        var admitted: [WaitingUserInfo] = []
        for w in waitingList where (try? admit(w.uid, by: admin)) != nil { admitted.append(w) }
        return admitted
    }

    func admitAll(_ uid: String) throws(MeetingErrorBody) -> WaitingListEvent {
        _ = try admin(uid)
        return WaitingListEvent(users: admitEveryone(by: uid))
    }

    /// Sends a waiting member away: it gets `waiting_removed` and is out of the meeting.
    func removeWaiting(_ targetUid: String, by admin: String?) throws(MeetingErrorBody) {
        if let admin { _ = try self.admin(admin) }
        let w = try waiter(targetUid)
        w.connection.send(.waitingRemoved, ByEvent(by: admin))
        leaveWaiting(targetUid, reason: .removed, by: admin, notifyRemoved: true)
    }

    /// Turns the waiting room on or off for this meeting's session (off admits everyone waiting).
    func setWaitingRoom(_ uid: String, enabled: Bool) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.waitingRoom = enabled
        broadcastRoom(["waiting_room"], by: uid)
        if !enabled { admitEveryone(by: uid) }
        return roomSnapshot  // after the admissions: member_count counts them
    }

    /// A member who just became host or co-host gets the waiting list.
    func sendWaitingList(to uid: String) {
        members[uid]?.connection.send(.waitingList, WaitingListEvent(users: waitingList))
    }
}
