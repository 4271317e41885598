import SMeetingProtocol

/// The snapshot's arrivals (an entry, an admission, a rejoin) and departures (every way out).
extension SMeetingRoomMachine {
    // MARK: - Snapshots

    /// `enter_room`'s answer or `waiting_admitted`: the meeting as it is, then the events that
    /// arrived meanwhile.
    mutating func applySnapshot(_ resp: EnterRoomResp) -> [Action] {
        var held: [SMeetingServerEvent] = []
        if case .entering(let buffered) = place { held = buffered }
        if resp.waiting {
            place = .waiting(resp.room)
        } else {
            place = .room(resp.room)
            users = Dictionary(resp.users.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
            waitingUsers = Dictionary(resp.waitingUsers.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
            subMeetings = resp.subMeetings
        }
        return held.flatMap { serverEvent($0) }
    }

    /// The meeting entered again on a new session. Members I knew that are not back yet stay in
    /// the list (they come back too; the server reports those that do not as exited).
    mutating func applyRejoinSnapshot(_ resp: EnterRoomResp) {
        if resp.waiting {
            place = .waiting(resp.room)
            users = [:]
            return
        }
        place = .room(resp.room)
        for user in resp.users { users[user.uid] = user }
        waitingUsers = Dictionary(resp.waitingUsers.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
        subMeetings = resp.subMeetings
    }

    // MARK: - Leaving

    /// Out of the meeting: the snapshot is forgotten at once, the channel left; `cause` (kicked,
    /// removed, ended) is told before `didExitRoom`, both after the state changed (a delegate that
    /// hears them finds the engine out of the meeting already). No exit is told for a stay that
    /// never began (`reason` nil) or one that ended already.
    mutating func leave(_ reason: ExitReason?, cause: SMeetingNotice? = nil) -> [Action] {
        let wasIn = isIn
        place = .out
        users = [:]
        waitingUsers = [:]
        subMeetings = []
        signIn = nil
        rollCalls = [:]
        var actions: [Action] = [.leaveChannel]
        if let cause { actions.append(.notify(cause)) }
        if let reason, wasIn { actions.append(.notify(.didExitRoom(reason))) }
        return actions
    }

    /// Whether a rejoin's refusal is worth trying again from a new connection: a connection
    /// failure, or a server error that says "retry" (the meeting's node is not reachable yet after
    /// a failover, or entries come too fast).
    static func rejoinWorthRetrying(_ error: SMeetingError) -> Bool {
        switch error {
        case .internalError: return true
        case .apiError(let code, _): return code == MeetingErrorCode.internalError.rawValue || code == MeetingErrorCode.rateLimited.rawValue
        default: return false
        }
    }

    /// The nickname my media joins a moved-to channel with: the roster's, else the login's.
    var moverNickname: String {
        me.flatMap { users[$0.uid]?.nickname } ?? me?.nickname ?? ""
    }
}
