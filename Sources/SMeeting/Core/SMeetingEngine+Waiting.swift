import SMeetingProtocol

/// The waiting room: members who enter a meeting with one wait (`isInWaitingRoom`) until a host
/// or co-host admits them (the SDK then joins the meeting's channel) or removes them. Hosts and
/// co-hosts see the waiting list and decide. Its events are `SMeetingRoomMachine`'s.
extension SMeetingEngine {
    // MARK: - Hosts and co-hosts

    /// Who waits, longest first (hosts and co-hosts; empty for members).
    public func getWaitingList() -> [WaitingUserInfo] {
        state.withLock { Array($0.meeting.waitingUsers.values) }.sorted { ($0.since, $0.uid) < ($1.since, $1.uid) }
    }

    /// Turns the waiting room on or off for this meeting (off admits everyone waiting).
    @discardableResult
    public func adminSetWaitingRoom(_ enabled: Bool) async throws -> RoomInfo {
        let (client, _) = try inMeeting()
        return try await client.call(.adminSetWaitingRoom, PolicyReq(allow: enabled), RoomInfo.self)
    }

    /// Lets one waiting member in.
    /// - Throws: `.apiError` 40401 when `uid` is not waiting.
    public func adminAdmitWaiting(uid: String) async throws {
        let (client, _) = try inMeeting()
        _ = try await client.call(.adminAdmit, TargetReq(uid: uid), EmptyPayload.self)
    }

    /// Lets everyone waiting in; returns who was admitted.
    @discardableResult
    public func adminAdmitAllWaiting() async throws -> [WaitingUserInfo] {
        let (client, _) = try inMeeting()
        return try await client.call(.adminAdmitAll, EmptyPayload(), WaitingListEvent.self).users
    }

    /// Sends a waiting member away.
    public func adminRemoveWaiting(uid: String) async throws {
        let (client, _) = try inMeeting()
        _ = try await client.call(.adminRemoveWaiting, TargetReq(uid: uid), EmptyPayload.self)
    }
}
