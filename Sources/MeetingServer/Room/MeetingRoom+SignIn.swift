import RTCCrypto
import SMeetingProtocol
import SRTCServer

/// A sign-in or roll call while it runs.
struct ActiveSignIn {
    var info: SignInInfo
    /// Who is asked, in order (a sign-in: everyone present but its starter, and whoever enters
    /// while it runs; a roll call: the member called).
    var roster: [String]
    var nicknames: [String: String]
    var signed: [String: Int64] = [:]
    /// Ends it at its deadline.
    var timer: RoomTimer?

    func result(endedAt: Int64?) -> SignInResult {
        SignInResult(signIn: info, endedAt: endedAt,
                     records: roster.map { SignInRecord(uid: $0, nickname: nicknames[$0] ?? $0, signedAt: signed[$0]) })
    }
}

/// Sign-in (the host asks everyone present to sign in before a deadline; hosts see the count as
/// answers arrive) and roll call (one member must answer within a given time). Every result is
/// stored as it happens (`MeetingStore+SignIn`) and readable after the meeting.
extension MeetingRoom {
    static let signInSeconds = 5...3600
    static let rollCallSeconds = 5...600
    static let defaultRollCallSeconds = 30

    /// Starts a sign-in of everyone present (but me) until `duration` seconds from now.
    func startSignIn(_ uid: String, duration: Int) throws(MeetingErrorBody) -> SignInInfo {
        _ = try admin(uid)
        guard Self.signInSeconds.contains(duration) else {
            throw MeetingValidation.invalid("duration must be \(Self.signInSeconds.lowerBound) to \(Self.signInSeconds.upperBound) seconds")
        }
        guard signIn == nil else { throw MeetingErrorBody(.wrongState, "a sign-in is running") }
        let now = clock.now()
        let info = SignInInfo(signInId: "SI" + SecureRandom.string(count: 16), kind: .signIn, startedBy: uid, startedAt: now,
                              deadline: now + Int64(duration) * 1000)
        let present = users.filter { $0.uid != uid }
        var running = ActiveSignIn(info: info, roster: present.map(\.uid), nicknames: Dictionary(present.map { ($0.uid, $0.nickname) }) { $1 })
        try store.recordSignInStart(appId: appId, meetingId: meetingId, info, roster: running.result(endedAt: nil).records)
        running.timer = deadlineTimer(info)
        signIn = running
        broadcast(.signInStarted, SignInStartedEvent(signIn: info))
        return info
    }

    /// Signs me in (again: the first answer stands).
    func signIn(_ uid: String, id: String) throws(MeetingErrorBody) -> SignInRecord {
        let me = try member(uid)
        guard var running = signIn, running.info.signInId == id else { throw try finishedOrUnknown(id) }
        guard clock.now() <= running.info.deadline else { throw MeetingErrorBody(.deadlinePassed, "the sign-in has ended") }
        guard running.roster.contains(uid) else { throw MeetingErrorBody(.invalidParameter, "you started this sign-in") }
        if let at = running.signed[uid] { return SignInRecord(uid: uid, nickname: me.info.nickname, signedAt: at) }
        let at = clock.now()
        try store.recordSignInAnswer(signInId: id, uid: uid, signedAt: at)
        running.signed[uid] = at
        signIn = running
        broadcastAdmins(.signInProgress, SignInProgressEvent(signInId: id, uid: uid, signed: running.signed.count, total: running.roster.count))
        return SignInRecord(uid: uid, nickname: me.info.nickname, signedAt: at)
    }

    /// Ends the running sign-in before its deadline.
    func endSignIn(_ uid: String) throws(MeetingErrorBody) -> SignInResult {
        _ = try admin(uid)
        guard let id = signIn?.info.signInId, let result = finish(id) else { throw MeetingErrorBody(.wrongState, "no sign-in is running") }
        return result
    }

    /// Calls one member, who must answer within `timeout` seconds.
    func rollCall(_ uid: String, _ req: RollCallReq) throws(MeetingErrorBody) -> SignInInfo {
        let a = try admin(uid)
        let t = try target(req.uid, by: a)
        let seconds = req.timeout ?? Self.defaultRollCallSeconds
        guard Self.rollCallSeconds.contains(seconds) else {
            throw MeetingValidation.invalid("timeout must be \(Self.rollCallSeconds.lowerBound) to \(Self.rollCallSeconds.upperBound) seconds")
        }
        let now = clock.now()
        let info = SignInInfo(signInId: "RC" + SecureRandom.string(count: 16), kind: .rollCall, startedBy: uid, startedAt: now,
                              deadline: now + Int64(seconds) * 1000, targetUid: req.uid)
        var running = ActiveSignIn(info: info, roster: [req.uid], nicknames: [req.uid: t.info.nickname])
        try store.recordSignInStart(appId: appId, meetingId: meetingId, info, roster: running.result(endedAt: nil).records)
        running.timer = deadlineTimer(info)
        rollCalls[info.signInId] = running
        sendToTargetAndAdmins(req.uid, .rollCall, SignInStartedEvent(signIn: info))
        return info
    }

    /// The member called answers the roll call; it ends at once.
    func answerRollCall(_ uid: String, id: String) throws(MeetingErrorBody) -> SignInRecord {
        let me = try member(uid)
        guard var running = rollCalls[id] else { throw try finishedOrUnknown(id) }
        guard running.info.targetUid == uid else { throw MeetingErrorBody(.permissionDenied, "this roll call is for \(running.info.targetUid ?? "someone else")") }
        guard clock.now() <= running.info.deadline else { throw MeetingErrorBody(.deadlinePassed, "the roll call has ended") }
        let at = clock.now()
        try store.recordSignInAnswer(signInId: id, uid: uid, signedAt: at)
        running.signed[uid] = at
        rollCalls[id] = running
        finish(id)
        return SignInRecord(uid: uid, nickname: me.info.nickname, signedAt: at)
    }

    /// A member entering during a sign-in is asked too.
    func joinRunningSignIn(uid: String, nickname: String) {
        guard var running = signIn, !running.roster.contains(uid), running.info.startedBy != uid else { return }
        running.roster.append(uid)
        running.nicknames[uid] = nickname
        signIn = running
        try? store.addSignInMember(signInId: running.info.signInId, uid: uid, nickname: nickname)
    }

    /// Ends every running sign-in and roll call (the room closes).
    func endSignIns() {
        for id in [signIn?.info.signInId].compactMap({ $0 }) + Array(rollCalls.keys) { finish(id) }
    }

    /// Ends a sign-in or roll call: stored, and everyone concerned is told. `nil` when not running.
    @discardableResult
    func finish(_ id: String) -> SignInResult? {
        let running: ActiveSignIn
        if let s = signIn, s.info.signInId == id {
            running = s
            signIn = nil
        } else if let r = rollCalls.removeValue(forKey: id) {
            running = r
        } else {
            return nil
        }
        running.timer?.cancel()
        let endedAt = clock.now()
        try? store.recordSignInEnd(signInId: id, endedAt: endedAt)
        let result = running.result(endedAt: endedAt)
        switch running.info.kind {
        case .rollCall:
            sendToTargetAndAdmins(running.info.targetUid ?? "", .rollCallResult, SignInEndedEvent(result: result))
        case .signIn:
            // Hosts and co-hosts see everyone's answer, members their own.
            for m in members.values {
                var mine = result
                if !m.info.role.isAdmin { mine.records = result.records.filter { $0.uid == m.info.uid } }
                m.connection.send(.signInEnded, SignInEndedEvent(result: mine))
            }
        }
        return result
    }

    /// Ends the sign-in or roll call `info` at its deadline.
    private func deadlineTimer(_ info: SignInInfo) -> RoomTimer {
        let id = info.signInId
        return schedule(at: info.deadline) { room in room.finish(id) }
    }

    private func sendToTargetAndAdmins<T: Encodable>(_ target: String, _ type: MeetingEventType, _ data: T) {
        let text = MeetingCodec.event(type, data)
        for m in members.values where m.info.role.isAdmin || m.info.uid == target { m.connection.send(text: text) }
    }

    /// The error for an answer to a sign-in or roll call that is not running: over, or unknown.
    private func finishedOrUnknown(_ id: String) throws(MeetingErrorBody) -> MeetingErrorBody {
        if try store.signInExists(appId: appId, meetingId: meetingId, signInId: id) {
            return MeetingErrorBody(.deadlinePassed, "\(id.prefix(64)) has ended")
        }
        return MeetingErrorBody(.notFound, "no sign-in or roll call \(id.prefix(64)) in this meeting")
    }
}
