import SMeetingProtocol
import SRTC

/// Sub-meetings (breakout rooms): the host (or a co-host) creates them, assigns members, opens
/// them, broadcasts to them, visits them and closes them with a countdown. A member who moves
/// leaves the meeting's SRTC channel for the sub-meeting's (its mic, camera and sharing close),
/// still in the meeting; `meeting(_:didMoveToSubMeeting:)` fires once the new channel is joined.
/// Its events and moves are `SMeetingRoomMachine`'s.
extension SMeetingEngine {
    /// The meeting's sub-meetings.
    public func getSubMeetings() -> [SubMeetingInfo] { state.withLock { $0.meeting.subMeetings } }

    /// The sub-meeting I am in; `nil` in the main meeting.
    public var currentSubMeetingId: String? {
        state.withLock { $0.meeting.currentSubMeetingId }
    }

    private func subMeetingCall<T: Encodable & Sendable>(_ type: MeetingRequestType, _ data: T) async throws -> [SubMeetingInfo] {
        let (client, _) = try inMeeting()
        return try await client.call(type, data, SubMeetingsEvent.self).subMeetings
    }

    /// Creates one sub-meeting per title.
    @discardableResult
    public func adminCreateSubMeetings(titles: [String]) async throws -> [SubMeetingInfo] {
        try await subMeetingCall(.adminCreateSubMeetings, CreateSubMeetingsReq(titles: titles))
    }

    /// Assigns members to a sub-meeting (out of any other); in an open one they move at once.
    /// - Throws: `.apiError` 40401 for an unknown sub-meeting or a member not in the meeting.
    @discardableResult
    public func adminAssignSubMeeting(subMeetingId: String, uids: [String]) async throws -> [SubMeetingInfo] {
        try await subMeetingCall(.adminAssignSubMeeting, AssignSubMeetingReq(subMeetingId: subMeetingId, uids: uids))
    }

    /// Assigns every member not yet assigned, at random, evenly.
    @discardableResult
    public func adminAssignSubMeetingsRandomly() async throws -> [SubMeetingInfo] {
        try await subMeetingCall(.adminAssignSubMeetingsRandomly, EmptyPayload())
    }

    /// Opens the sub-meetings: assigned members move into them.
    @discardableResult
    public func adminOpenSubMeetings() async throws -> [SubMeetingInfo] {
        try await subMeetingCall(.adminOpenSubMeetings, EmptyPayload())
    }

    /// Sends a text to everyone, in every sub-meeting.
    public func adminBroadcastToSubMeetings(_ text: String) async throws {
        let (client, _) = try inMeeting()
        _ = try await client.call(.adminBroadcastSubMeetings, BroadcastReq(text: text), EmptyPayload.self)
    }

    /// Goes into an open sub-meeting, or back to the main meeting with `nil`; returns once the
    /// new channel is joined.
    public func adminVisitSubMeeting(subMeetingId: String?) async throws {
        let (client, _) = try inMeeting()
        let moved = try await client.call(.adminVisitSubMeeting, VisitSubMeetingReq(subMeetingId: subMeetingId), SubMeetingMovedEvent.self)
        try await carryOutAwaiting(meetingStep(.visitAnswered(moved)))
    }

    /// Asks the hosts for help from my sub-meeting.
    public func requestSubMeetingHelp() async throws {
        let (client, _) = try inMeeting()
        _ = try await client.call(.requestSubMeetingHelp, EmptyPayload(), EmptyPayload.self)
    }

    /// Closes the sub-meetings after `countdown` seconds (everyone returns to the main meeting).
    @discardableResult
    public func adminCloseSubMeetings(countdown: Int = 10) async throws -> [SubMeetingInfo] {
        try await subMeetingCall(.adminCloseSubMeetings, CloseSubMeetingsReq(countdown: countdown))
    }
}
