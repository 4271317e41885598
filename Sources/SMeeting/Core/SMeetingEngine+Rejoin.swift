import SMeetingProtocol
import SRTC

/// A meeting session lost with the server node that ran it (a cluster node drained or died,
/// docs/meeting-protocol.md "Resuming a session"): the login of a resume answers `rejoin` with a
/// new session, and the SDK enters the meeting (or its waiting room) again on it. The server gives
/// the member its place back (role, devices, hand, rights, its place in the list); the meeting's
/// SRTC channel moved on its own (SRTC resumes its session on the channel's new node) and is
/// joined again only if it ended. Nothing is reported to the app but what changed meanwhile.
extension SMeetingEngine {
    /// Enters the meeting I was in again on `client` (a new session). `false` when it should be
    /// tried again from a new connection (the connection failed, or the meeting's node is not ready
    /// yet); a refusal that retrying cannot change (the meeting ended, I may no longer enter) takes
    /// me out of the meeting (`didExitRoom(.disconnected)`) and keeps the login.
    func rejoinMeeting(on client: MeetingClient) async -> Bool {
        // The new session numbers its events from 1 (`SMeetingMachine` counts from 0 again, and
        // back if this is retried).
        let (meetingId, known, waited) = state.withLock { s in ((s.room ?? s.waitingRoom)?.meetingId, s.users, s.room == nil) }
        guard let meetingId else { return true }
        let resp: EnterRoomResp
        do {
            resp = try await client.call(.enterRoom, MeetingEnterReq(meetingId: meetingId), EnterRoomResp.self) { [weak self] resp in
                self?.applyRejoinSnapshot(resp, known: known)
            }
        } catch {
            if Self.worthRetrying(error) { return false }
            tearDown(.disconnected)
            return true
        }
        let (channel, nickname) = state.withLock { ($0.channel, $0.nickname) }
        if let rtc = resp.rtc, channel?.isJoined != true {
            try? await joinChannel(rtc, nickname: resp.me.nickname.isEmpty ? (nickname ?? "") : resp.me.nickname)
        }
        // I waited, and the waiting room was switched off while my session moved: I am in.
        if waited, !resp.waiting { notify { $0.meeting($1, wasAdmittedFromWaitingRoom: resp.room) } }
        return true
    }

    /// The snapshot of the meeting entered again. Members I knew that are not back yet stay in
    /// the list (they come back too; the server reports those that do not as exited).
    private func applyRejoinSnapshot(_ resp: EnterRoomResp, known: [String: MeetingUserInfo]) {
        state.withLock { s in
            if resp.waiting {
                s.waitingRoom = resp.room
                s.room = nil
                s.users = [:]
                return
            }
            s.waitingRoom = nil
            s.room = resp.room
            var users = known
            for user in resp.users { users[user.uid] = user }
            s.users = users
            s.waitingUsers = Dictionary(resp.waitingUsers.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
            s.subMeetings = resp.subMeetings
        }
    }

    /// A connection failure, or a server error that says "retry" (the meeting's node is not
    /// reachable yet after a failover, or entries come too fast).
    private static func worthRetrying(_ error: SMeetingError) -> Bool {
        switch error {
        case .internalError: return true
        case .apiError(let code, _): return code == MeetingErrorCode.internalError.rawValue || code == MeetingErrorCode.rateLimited.rawValue
        default: return false
        }
    }
}
