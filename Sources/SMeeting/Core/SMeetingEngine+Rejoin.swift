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
        let (meetingId, waited) = state.withLock { s in ((s.meeting.room ?? s.meeting.waitingRoom)?.meetingId, s.meeting.room == nil) }
        guard let meetingId else { return true }
        let resp: EnterRoomResp
        do {
            resp = try await client.call(.enterRoom, MeetingEnterReq(meetingId: meetingId), EnterRoomResp.self) { [weak self] resp in
                self?.meetingEvent(.rejoinAnswered(resp))
            }
        } catch {
            if SMeetingRoomMachine.rejoinWorthRetrying(error) { return false }
            meetingEvent(.rejoinRefused)
            return true
        }
        let joined = state.withLock { $0.channel?.isJoined == true }
        try? await carryOutAwaiting(meetingStep(.rejoinReturned(resp, waited: waited, channelJoined: joined)))
        return true
    }
}
