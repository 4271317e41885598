import SMeetingProtocol
import SRTC

/// Entering and exiting, the in-meeting snapshot, and the meeting events.
extension SMeetingEngine {
    // MARK: - Enter and exit

    /// Whether I am in a meeting.
    public var isInRoom: Bool { state.withLock { $0.room != nil } }

    /// Enters a meeting by `meetingId` or `roomNo`: the server admits me and grants the meeting's
    /// SRTC channel, which the SDK then joins with `srtc`; remote audio is subscribed automatically.
    @discardableResult
    public func enterRoom(_ req: MeetingEnterReq) async throws -> RoomInfo {
        let client = try loggedIn()
        let allowed = state.withLock { s -> Bool in
            guard s.room == nil, !s.entering else { return false }
            s.entering = true
            return true
        }
        guard allowed else { throw SMeetingError.apiError(code: MeetingErrorCode.wrongState.rawValue, message: "already in a meeting") }
        let resp: EnterRoomResp
        do {
            resp = try await client.call(.enterRoom, req, EnterRoomResp.self) { [weak self] resp in self?.applySnapshot(resp) }
        } catch {
            state.withLock { $0.entering = false; $0.buffered = [] }
            throw error
        }
        let channel = srtc.createChannel()
        let bridge = ChannelBridge(engine: self)
        channel.delegates.add(delegate: bridge)
        state.withLock {
            $0.channel = channel
            $0.bridge = bridge
        }
        do {
            _ = try await channel.join(url: url, token: resp.rtc.token, nickname: resp.me.nickname)
        } catch {
            _ = try? await client.call(.exitRoom, EmptyPayload(), EmptyPayload.self)
            tearDown(nil)
            await channel.leave()
            throw error
        }
        return getRoomInfo() ?? resp.room
    }

    /// Exits the current meeting (the login stays). Never throws; does nothing outside a meeting.
    public func exitRoom() async {
        let (client, inRoom) = state.withLock { ($0.client, $0.room != nil) }
        if inRoom, let client { _ = try? await client.call(.exitRoom, EmptyPayload(), EmptyPayload.self) }
        if inRoom { tearDown(.exit) }
        await state.withLock { $0.leaving }?.value
    }

    // MARK: - Snapshot

    /// The current room; `nil` outside a meeting.
    public func getRoomInfo() -> RoomInfo? { state.withLock { $0.room } }

    /// Every member, me included, in order of entry.
    public func getUsersInfoList() -> [MeetingUserInfo] {
        state.withLock { Array($0.users.values) }.sorted { ($0.enteredAt, $0.uid) < ($1.enteredAt, $1.uid) }
    }

    /// Every member by uid.
    public func getUsersInfo() -> [String: MeetingUserInfo] { state.withLock { $0.users } }

    /// One member; `.notInMeeting` outside a meeting, `.internalError` for an unknown uid.
    public func getUserInfo(_ uid: String) throws -> MeetingUserInfo {
        try state.withLock { s throws(SMeetingError) -> MeetingUserInfo in
            guard s.room != nil else { throw .notInMeeting }
            guard let user = s.users[uid] else { throw .internalError("\(uid) is not in the meeting") }
            return user
        }
    }

    /// The connection and channel of the current meeting, or `.notInMeeting`.
    func inMeeting() throws(SMeetingError) -> (MeetingClient, Channel) {
        let (client, room, channel) = state.withLock { ($0.client, $0.room, $0.channel) }
        guard let client else { throw .notLoggedIn }
        guard room != nil, let channel else { throw .notInMeeting }
        return (client, channel)
    }

    // MARK: - Events

    /// Applies `enter_room`'s answer on the reader thread, then the events that arrived meanwhile.
    private func applySnapshot(_ resp: EnterRoomResp) {
        let buffered = state.withLock { s -> [(MeetingEventType, String)] in
            s.room = resp.room
            s.users = Dictionary(resp.users.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
            s.entering = false
            defer { s.buffered = [] }
            return s.buffered
        }
        for (type, text) in buffered { handleEvent(type, text) }
    }

    /// One meeting event, on the reader thread: update the snapshot, then notify.
    func handleEvent(_ type: MeetingEventType, _ text: String) {
        let inRoom = state.withLock { s -> Bool in
            if s.room == nil, s.entering { s.buffered.append((type, text)) }
            return s.room != nil
        }
        guard inRoom else { return }
        do {
            switch type {
            case .userEntered:
                let e = try MeetingCodec.payload(UserEnteredEvent.self, from: text)
                state.withLock { $0.users[e.user.uid] = e.user }
                notify { $0.meeting($1, userDidEnter: e.user) }
            case .userExited:
                let e = try MeetingCodec.payload(UserExitedEvent.self, from: text)
                state.withLock { $0.users[e.user.uid] = nil }
                notify { $0.meeting($1, userDidExit: e.user, reason: e.reason) }
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
                notify { $0.meeting($1, wasKickedBy: e.by) }
                tearDown(.kicked)
            case .roomEnded:
                let e = try MeetingCodec.payload(ByEvent.self, from: text)
                notify { $0.meetingDidEnd($1, by: e.by) }
                tearDown(.ended)
            case .disconnected:
                let e = try MeetingCodec.payload(DisconnectedEvent.self, from: text)
                tearDown(e.reason == "duplicate_login" ? .duplicateLogin : .disconnected)
            }
        } catch {
            // An event this SDK cannot read is skipped; the snapshot stays as it was.
        }
    }

    private func userChanged(_ e: UserChangedEvent) {
        let (old, me) = state.withLock { s -> (MeetingUserInfo?, String?) in
            defer { s.users[e.user.uid] = e.user }
            return (s.users[e.user.uid], s.uid)
        }
        let user = e.user
        if user.uid == me {
            // The host (or mute all) closed my device: stop publishing it.
            if old?.micState == .on, user.micState == .off { Task { await self.unpublishMic() } }
            if old?.cameraState == .on, user.cameraState == .off { Task { await self.unpublishCamera() } }
            if old?.shareState == ShareType.screen.rawValue, user.shareState == 0 { Task { await self.unpublishScreen() } }
        }
        for field in e.fields {
            switch field {
            case "mic_state": notify { $0.meeting($1, userMicStateDidChange: user) }
            case "camera_state": notify { $0.meeting($1, userCameraStateDidChange: user) }
            case "share_state": notify { $0.meeting($1, userShareStateDidChange: user) }
            case "role": notify { $0.meeting($1, userRoleDidChange: user) }
            case "hand_raised": notify { $0.meeting($1, userHandDidChange: user) }
            case "chat_disabled": notify { $0.meeting($1, userChatDisabledDidChange: user) }
            default: break
            }
        }
        notify { $0.meeting($1, userInfoDidChange: user) }
    }

    /// Leaves the meeting state at once and the SRTC channel in the background; `reason` nil
    /// when the entry itself failed (no exit event then).
    func tearDown(_ reason: ExitReason?) {
        let (channel, bridge) = state.withLock { s -> (Channel?, ChannelBridge?) in
            defer {
                s.room = nil
                s.users = [:]
                s.channel = nil
                s.bridge = nil
                s.micTrack = nil
                s.cameraTrack = nil
                s.screenTrack = nil
                s.playViews = [:]
                s.mcuViews = [:]
                s.entering = false
            }
            return (s.channel, s.bridge)
        }
        if let channel {
            if let bridge { channel.delegates.remove(delegate: bridge) }
            let leaving = Task { await channel.leave() }
            state.withLock { $0.leaving = leaving }
        }
        if let reason { notify { $0.meeting($1, didExitRoom: reason) } }
    }

    func notify(_ body: @escaping @Sendable (SMeetingDelegate, SMeetingEngine) -> Void) {
        delegates.notify { [weak self] d in if let self { body(d, self) } }
    }
}
