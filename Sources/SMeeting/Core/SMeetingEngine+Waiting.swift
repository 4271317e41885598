import SMeetingProtocol

/// The waiting room: members who enter a meeting with one wait (`isInWaitingRoom`) until a host
/// or co-host admits them (the SDK then joins the meeting's channel) or removes them. Hosts and
/// co-hosts see the waiting list and decide.
extension SMeetingEngine {
    // MARK: - Hosts and co-hosts

    /// Who waits, longest first (hosts and co-hosts; empty for members).
    public func getWaitingList() -> [WaitingUserInfo] {
        state.withLock { Array($0.waitingUsers.values) }.sorted { ($0.since, $0.uid) < ($1.since, $1.uid) }
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

    // MARK: - Events

    /// `waiting_entered`, `waiting_left`, `waiting_list` (hosts and co-hosts).
    func waitingListEvent(_ type: MeetingEventType, _ text: String) throws {
        switch type {
        case .waitingEntered:
            let e = try MeetingCodec.payload(WaitingEnteredEvent.self, from: text)
            state.withLock { $0.waitingUsers[e.user.uid] = e.user }
            notify { $0.meeting($1, waitingUserDidEnter: e.user) }
        case .waitingLeft:
            let e = try MeetingCodec.payload(WaitingLeftEvent.self, from: text)
            state.withLock { $0.waitingUsers[e.user.uid] = nil }
            notify { $0.meeting($1, waitingUserDidLeave: e.user, reason: e.reason) }
        default:
            let e = try MeetingCodec.payload(WaitingListEvent.self, from: text)
            state.withLock { $0.waitingUsers = Dictionary(e.users.map { ($0.uid, $0) }, uniquingKeysWith: { $1 }) }
        }
    }

    /// What reaches me while I wait: admitted or removed (the meeting's end and a replaced
    /// session are handled as in the meeting).
    func waitingRoomEvent(_ type: MeetingEventType, _ text: String) throws {
        switch type {
        case .waitingAdmitted:
            let resp = try MeetingCodec.payload(EnterRoomResp.self, from: text)
            guard let rtc = resp.rtc else { return }
            applySnapshot(resp)
            switchChannel { [weak self] in
                guard let self else { return }
                do {
                    try await self.joinChannel(rtc, nickname: resp.me.nickname)
                    self.notify { $0.meeting($1, wasAdmittedFromWaitingRoom: resp.room) }
                } catch {
                    if let client = self.state.withLock({ $0.client }) { _ = try? await client.call(.exitRoom, EmptyPayload(), EmptyPayload.self) }
                    self.tearDown(.disconnected)
                }
            }
        case .waitingRemoved:
            let e = try MeetingCodec.payload(ByEvent.self, from: text)
            tearDown(.kicked) { $0.meeting($1, wasRemovedFromWaitingRoomBy: e.by) }
        default:
            break
        }
    }
}
