import SMeetingProtocol

/// Host controls (`admin…`: host and co-hosts; transfer, co-host and end are the host's),
/// chat and raised hands. Every call needs a meeting (`.notInMeeting` otherwise); a member
/// calling an `admin…` API gets `.unauthorized`.
extension SMeetingEngine {
    private func send<T: Encodable & Sendable, R: Decodable & Sendable>(_ type: MeetingRequestType, _ data: T, _ result: R.Type) async throws -> R {
        let (client, _) = try inMeeting()
        return try await client.call(type, data, R.self)
    }

    // MARK: - Room policies

    /// Mute all: every member's microphone closes; `allowSelfUnmute` lets members reopen theirs.
    @discardableResult
    public func adminMuteAll(allowSelfUnmute: Bool = false) async throws -> RoomInfo {
        try await send(.adminMuteAll, PolicyReq(allow: allowSelfUnmute), RoomInfo.self)
    }

    /// Lifts mute all (microphones stay closed until their owners open them).
    @discardableResult
    public func adminUnmuteAll() async throws -> RoomInfo { try await send(.adminUnmuteAll, EmptyPayload(), RoomInfo.self) }

    /// Camera off for everyone; `allowSelfOpen` lets members reopen theirs.
    @discardableResult
    public func adminCameraOffAll(allowSelfOpen: Bool = false) async throws -> RoomInfo {
        try await send(.adminCameraOffAll, PolicyReq(allow: allowSelfOpen), RoomInfo.self)
    }

    /// Lifts camera off for everyone.
    @discardableResult
    public func adminCameraOnAll() async throws -> RoomInfo { try await send(.adminCameraOnAll, EmptyPayload(), RoomInfo.self) }

    /// Locks the room (only host and co-hosts may enter) or unlocks it.
    @discardableResult
    public func adminLockRoom(_ locked: Bool) async throws -> RoomInfo { try await send(.adminLockRoom, PolicyReq(allow: locked), RoomInfo.self) }

    /// Disables sharing for members (a member sharing now stops) or enables it again.
    @discardableResult
    public func adminDisableShare(_ disabled: Bool) async throws -> RoomInfo {
        try await send(.adminDisableShare, PolicyReq(allow: disabled), RoomInfo.self)
    }

    // MARK: - Members

    /// Removes a member from the meeting (and from its SRTC channel).
    public func adminKickOut(uid: String) async throws { _ = try await send(.adminKick, TargetReq(uid: uid), EmptyPayload.self) }

    /// Makes a member co-host, or member again (host only).
    @discardableResult
    public func adminSetCoHost(uid: String, enable: Bool = true) async throws -> MeetingUserInfo {
        try await send(.adminSetCoHost, TargetReq(uid: uid, enable: enable), MeetingUserInfo.self)
    }

    /// Hands the host role to `uid`; I become a member (host only).
    @discardableResult
    public func adminTransferHost(uid: String) async throws -> MeetingUserInfo {
        try await send(.adminTransferHost, TargetReq(uid: uid), MeetingUserInfo.self)
    }

    /// Asks a member to open its microphone; it confirms with `requestOpenMic(byAdmin: true, adminUid:)`.
    public func adminRequestOpenMic(uid: String) async throws { _ = try await send(.adminRequestOpenMic, TargetReq(uid: uid), EmptyPayload.self) }

    /// Asks a member to open its camera; it confirms with `requestOpenCamera(byAdmin: true, adminUid:)`.
    public func adminRequestOpenCamera(uid: String) async throws {
        _ = try await send(.adminRequestOpenCamera, TargetReq(uid: uid), EmptyPayload.self)
    }

    /// Closes a member's microphone.
    @discardableResult
    public func adminCloseMic(uid: String) async throws -> MeetingUserInfo { try await send(.adminCloseMic, TargetReq(uid: uid), MeetingUserInfo.self) }

    /// Closes a member's camera.
    @discardableResult
    public func adminCloseCamera(uid: String) async throws -> MeetingUserInfo {
        try await send(.adminCloseCamera, TargetReq(uid: uid), MeetingUserInfo.self)
    }

    /// Stops a member's sharing.
    @discardableResult
    public func adminStopShare(uid: String) async throws -> MeetingUserInfo { try await send(.adminStopShare, TargetReq(uid: uid), MeetingUserInfo.self) }

    /// Disables (or enables again) chat for one member.
    @discardableResult
    public func adminDisableChat(uid: String, disabled: Bool = true) async throws -> MeetingUserInfo {
        try await send(.adminDisableChat, TargetReq(uid: uid, enable: disabled), MeetingUserInfo.self)
    }

    /// Stops (or allows again) one member's drawing on the whiteboard; everyone sees
    /// `userDrawDisabledDidChange`.
    @discardableResult
    public func adminDisableDraw(uid: String, disabled: Bool = true) async throws -> MeetingUserInfo {
        try await send(.adminDisableDraw, TargetReq(uid: uid, enable: disabled), MeetingUserInfo.self)
    }

    /// Names (or takes back) a presenter of a training meeting: presenters may open mic and
    /// camera; taking it back closes them.
    @discardableResult
    public func adminSetPresenter(uid: String, enable: Bool = true) async throws -> MeetingUserInfo {
        try await send(.adminSetPresenter, TargetReq(uid: uid, enable: enable), MeetingUserInfo.self)
    }

    /// Approves a raised hand: the member becomes a presenter and its hand is lowered (decline
    /// with `adminLowerHand(uid:)`).
    @discardableResult
    public func adminApproveHand(uid: String) async throws -> MeetingUserInfo {
        try await send(.adminApproveHand, TargetReq(uid: uid), MeetingUserInfo.self)
    }

    /// Lowers a member's hand.
    @discardableResult
    public func adminLowerHand(uid: String) async throws -> MeetingUserInfo { try await send(.adminLowerHand, TargetReq(uid: uid), MeetingUserInfo.self) }

    /// Ends the meeting for everyone (host only); returns once I am out of it.
    public func adminEndRoom() async throws {
        _ = try await send(.adminEndRoom, EmptyPayload(), EmptyPayload.self)
        meetingEvent(.endedByMe)
        await state.withLock { $0.leaving }?.value
    }

    // MARK: - Live captions

    /// Turns on live captions in the meeting (host and co-hosts; docs/captions.md): the server
    /// transcribes every member, and everyone's channel delegates get
    /// `channel(_:didReceiveCaption:)` (the web SDK: `captionDidArrive`).
    /// - Parameter language: BCP 47; `en-US` (the default) is the one the server has a model for.
    /// - Throws: `.unauthorized` for a member; `.apiError` with `wrong_state` when captions already
    ///   run or the server runs none, `invalid_parameter` for a language without a model.
    public func startCaptions(language: String? = nil) async throws {
        _ = try await send(.adminStartCaptions, CaptionsReq(language: language), EmptyPayload.self)
    }

    /// Turns live captions off; each turn in progress gets its final caption first.
    /// - Throws: `.unauthorized` for a member; `.apiError` with `wrong_state` when none run.
    public func stopCaptions() async throws {
        _ = try await send(.adminStopCaptions, EmptyPayload(), EmptyPayload.self)
    }

    // MARK: - Ingress

    /// Makes an RTMP ingress into the meeting, or into sub-meeting `subMeetingId` (host and
    /// co-hosts; docs/meeting-protocol.md, "Ingress"): an encoder pushing to the answer's `url`
    /// appears under `ingress.uid` with `camera_big` and `mic` in that (sub-)meeting's channel,
    /// held by mute all and camera off for everyone, and every member sees it in
    /// `RoomInfo.ingresses`. Only the caller gets the URL and stream key.
    /// - Throws: `.unauthorized` for a member; `.apiError` with `limit_reached` past 4,
    ///   `policy_forbidden` in an end-to-end encrypted meeting, `not_found` for an unknown
    ///   sub-meeting, `wrong_state` when the server runs no ingress or the sub-meetings are closing.
    public func adminCreateIngress(nickname: String? = nil, subMeetingId: String? = nil) async throws -> CreateIngressResp {
        try await send(.adminCreateIngress, CreateIngressReq(nickname: nickname, subMeetingId: subMeetingId), CreateIngressResp.self)
    }

    /// Deletes an ingress of the meeting (a push in progress ends).
    /// - Throws: `.unauthorized` for a member; `.apiError` with `not_found` for another id.
    public func adminDeleteIngress(ingressId: String) async throws {
        _ = try await send(.adminDeleteIngress, DeleteIngressReq(ingressId: ingressId), RoomInfo.self)
    }

    // MARK: - Chat and hands

    /// Sends a chat message to everyone, or privately to `uid`.
    /// - Throws: `.unauthorized` when chat is disabled for me; `.apiError` for an absent recipient (40401).
    @discardableResult
    public func sendRoomChatMessage(_ text: String, to uid: String? = nil) async throws -> ChatMessage {
        try await send(.sendChat, ChatReq(text: text, to: uid), ChatMessage.self)
    }

    /// Raises my hand.
    public func raiseHand() async throws { _ = try await send(.raiseHand, EmptyPayload(), MeetingUserInfo.self) }

    /// Lowers my hand.
    public func lowerHand() async throws { _ = try await send(.lowerHand, EmptyPayload(), MeetingUserInfo.self) }
}
