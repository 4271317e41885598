import SMeetingProtocol

/// A member's own media states (subject to the room's policies), hand and chat.
extension MeetingRoom {
    /// Whether a `by_admin` confirmation matches a request a host or co-host made; consumes it.
    private func confirmAdmin(_ uid: String, _ kind: AdminRequestKind, _ req: OpenReq) throws(MeetingErrorBody) -> Bool {
        guard req.byAdmin == true else { return false }
        guard let adminUid = req.adminUid, members[uid]?.pending[kind] == adminUid else {
            throw MeetingErrorBody(.wrongState, "no \(kind.rawValue) request from \(req.adminUid ?? "an admin") to confirm")
        }
        members[uid]?.pending[kind] = nil
        return true
    }

    /// Opens my microphone: refused to members while mute all forbids unmuting oneself, and in a
    /// training meeting to members who are not presenters (unless confirming a host's request).
    func requestOpenMic(_ uid: String, _ req: OpenReq) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        let confirmed = try confirmAdmin(uid, .mic, req)
        if !confirmed, me.info.role == .member, room.muteAll, !room.allowSelfUnmute {
            throw MeetingErrorBody(.policyForbidden, "mute all is on and members may not unmute themselves")
        }
        if !confirmed, !trainingAllows(me.info) {
            throw MeetingErrorBody(.policyForbidden, "in a training meeting only presenters may open the microphone; raise your hand")
        }
        return update(uid, ["mic_state"], by: confirmed ? req.adminUid : nil) { $0.micState = .on } ?? me.info
    }

    func closeMic(_ uid: String, by admin: String? = nil) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        return update(uid, ["mic_state"], by: admin) { $0.micState = .off } ?? me.info
    }

    /// Opens my camera: refused in a voice meeting, and to members while camera off for everyone
    /// forbids opening one's own.
    func requestOpenCamera(_ uid: String, _ req: OpenReq) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        if room.mode == .voice { throw MeetingErrorBody(.policyForbidden, "a voice meeting has no video") }
        let confirmed = try confirmAdmin(uid, .camera, req)
        if !confirmed, me.info.role == .member, room.cameraOffAll, !room.allowSelfOpenCamera {
            throw MeetingErrorBody(.policyForbidden, "camera off for everyone is on and members may not open their cameras")
        }
        if !confirmed, !trainingAllows(me.info) {
            throw MeetingErrorBody(.policyForbidden, "in a training meeting only presenters may open the camera; raise your hand")
        }
        return update(uid, ["camera_state"], by: confirmed ? req.adminUid : nil) { $0.cameraState = .on } ?? me.info
    }

    func closeCamera(_ uid: String, by admin: String? = nil) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        return update(uid, ["camera_state"], by: admin) { $0.cameraState = .off } ?? me.info
    }

    /// Starts sharing: one member at a time; members may not while sharing is disabled, nor in a
    /// training meeting unless presenters. A screen share also needs the screen free of view
    /// captures.
    func requestShare(_ uid: String, _ req: ShareReq) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        if room.sharingUid == uid { throw MeetingErrorBody(.wrongState, "already sharing") }
        if let other = room.sharingUid { throw MeetingErrorBody(.alreadySharing, "\(other) is sharing") }
        try checkMaySharePolicy(me.info)
        if room.mode == .voice, req.shareType == .screen { throw MeetingErrorBody(.policyForbidden, "a voice meeting has no video") }
        if req.shareType == .screen, let holder = screenHolder(except: nil) {
            throw MeetingErrorBody(holder == uid ? .wrongState : .alreadySharing,
                                   holder == uid ? "stop your view capture first" : "\(holder) is capturing a view")
        }
        room.sharingUid = uid
        room.shareType = req.shareType.rawValue
        let info = update(uid, ["share_state"]) { $0.shareState = req.shareType.rawValue } ?? me.info
        broadcastRoom(["sharing"], by: nil)
        return info
    }

    /// The sharing policies of a member: sharing disabled, training mode.
    private func checkMaySharePolicy(_ info: MeetingUserInfo) throws(MeetingErrorBody) {
        if info.role == .member, room.shareDisabled { throw MeetingErrorBody(.policyForbidden, "sharing is disabled") }
        if !trainingAllows(info) { throw MeetingErrorBody(.policyForbidden, "in a training meeting only presenters may share") }
    }

    /// Who holds the screen (a screen share or a view capture), other than `uid`: a member of the
    /// room's previous node not back yet too (its SRTC session publishes the screen again, `+Record`).
    private func screenHolder(except uid: String?) -> String? {
        let away = returning.values.filter { members[$0.uid] == nil }
        return (members.values.map(\.info) + away).first { $0.uid != uid && Self.holdsScreen($0) }?.uid
    }

    /// Starts a view capture: I may publish `screen` without a sharing state (no
    /// `room_changed`), under the sharing policies and with the screen free.
    func startViewCapture(_ uid: String) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        if me.info.viewCapture { return me.info }
        if me.info.shareState == ShareType.screen.rawValue { throw MeetingErrorBody(.wrongState, "stop screen sharing first") }
        try checkMaySharePolicy(me.info)
        if room.mode == .voice { throw MeetingErrorBody(.policyForbidden, "a voice meeting has no video") }
        if let holder = screenHolder(except: uid) { throw MeetingErrorBody(.alreadySharing, "\(holder) holds the screen") }
        return update(uid, ["view_capture"]) { $0.viewCapture = true } ?? me.info
    }

    func stopViewCapture(_ uid: String, by admin: String? = nil) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        return update(uid, ["view_capture"], by: admin) { $0.viewCapture = false } ?? me.info
    }

    func stopShare(_ uid: String, by admin: String? = nil) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        guard room.sharingUid == uid else { return me.info }
        room.sharingUid = nil
        room.shareType = 0
        let info = update(uid, ["share_state"], by: admin) { $0.shareState = 0 } ?? me.info
        broadcastRoom(["sharing"], by: admin)
        return info
    }

    func setHand(_ uid: String, raised: Bool, by admin: String? = nil) throws(MeetingErrorBody) -> MeetingUserInfo {
        let me = try member(uid)
        return update(uid, ["hand_raised"], by: admin) { $0.handRaised = raised } ?? me.info
    }

    /// Sends a chat message to everyone else, or to the one member `to`.
    func chat(_ uid: String, _ req: ChatReq, messageId: String) throws(MeetingErrorBody) -> ChatMessage {
        let me = try member(uid)
        if me.info.chatDisabled { throw MeetingErrorBody(.policyForbidden, "chat is disabled for you") }
        guard !req.text.isEmpty else { throw MeetingErrorBody(.invalidParameter, "text is empty") }
        guard req.text.count <= MeetingValidation.maxChatCharacters else {
            throw MeetingErrorBody(.payloadTooLarge, "text exceeds \(MeetingValidation.maxChatCharacters) characters")
        }
        let message = ChatMessage(messageId: messageId, from: uid, fromNickname: me.info.nickname, to: req.to, text: req.text,
                                  timestamp: clock.now())
        if let to = req.to {
            guard to != uid else { throw MeetingErrorBody(.invalidParameter, "cannot chat to yourself") }
            guard let target = members[to] else { throw MeetingErrorBody(.notFound, "\(to) is not in the meeting") }
            target.connection.send(.chat, ChatEvent(message: message))
        } else {
            // Everyone in the same place: the main meeting, or my sub-meeting.
            let text = MeetingCodec.event(.chat, ChatEvent(message: message))
            for m in members.values where m.info.uid != uid && m.info.subMeetingId == me.info.subMeetingId { m.connection.send(text: text) }
        }
        return message
    }
}
