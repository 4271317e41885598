import SMeetingProtocol

/// The `admin…` commands: host and co-hosts, with the host-only ones marked. A co-host cannot act
/// on the host.
extension MeetingRoom {
    /// The caller as an admin, or `permission_denied`.
    func admin(_ uid: String, hostOnly: Bool = false) throws(MeetingErrorBody) -> Member {
        let m = try member(uid)
        guard hostOnly ? m.info.role == .host : m.info.role.isAdmin else {
            throw MeetingErrorBody(.permissionDenied, hostOnly ? "only the host may do this" : "only the host or a co-host may do this")
        }
        return m
    }

    /// The target of an admin command: present, not the caller, not the host unless the host acts.
    func target(_ uid: String, by admin: Member, allowSelf: Bool = false) throws(MeetingErrorBody) -> Member {
        guard let t = members[uid] else { throw MeetingErrorBody(.notFound, "\(uid) is not in the meeting") }
        if !allowSelf, uid == admin.info.uid { throw MeetingErrorBody(.invalidParameter, "cannot target yourself") }
        if t.info.role == .host, admin.info.role != .host { throw MeetingErrorBody(.permissionDenied, "a co-host cannot act on the host") }
        return t
    }

    /// Mute all: every member's microphone closes; `allowSelfUnmute` says whether they may reopen it.
    func muteAll(_ uid: String, allowSelfUnmute: Bool) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.muteAll = true
        room.allowSelfUnmute = allowSelfUnmute
        for m in members.values where m.info.role == .member && m.info.micState == .on {
            update(m.info.uid, ["mic_state"], by: uid) { $0.micState = .off }
        }
        followRuleOnIngresses(desc: Self.micDesc, held: true)
        broadcastRoom(["mute_all"], by: uid)
        return roomSnapshot
    }

    /// Lifts mute all (microphones stay closed until their owners open them; the ingresses'
    /// sound is released, as they have no microphone to open).
    func unmuteAll(_ uid: String) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.muteAll = false
        room.allowSelfUnmute = true
        followRuleOnIngresses(desc: Self.micDesc, held: false)
        broadcastRoom(["mute_all"], by: uid)
        return roomSnapshot
    }

    func cameraOffAll(_ uid: String, allowSelfOpen: Bool) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.cameraOffAll = true
        room.allowSelfOpenCamera = allowSelfOpen
        for m in members.values where m.info.role == .member && m.info.cameraState == .on {
            update(m.info.uid, ["camera_state"], by: uid) { $0.cameraState = .off }
        }
        followRuleOnIngresses(desc: Self.cameraDesc, held: true)
        broadcastRoom(["camera_off_all"], by: uid)
        return roomSnapshot
    }

    func cameraOnAll(_ uid: String) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.cameraOffAll = false
        room.allowSelfOpenCamera = true
        followRuleOnIngresses(desc: Self.cameraDesc, held: false)
        broadcastRoom(["camera_off_all"], by: uid)
        return roomSnapshot
    }

    func lock(_ uid: String, locked: Bool) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.locked = locked
        broadcastRoom(["locked"], by: uid)
        return roomSnapshot
    }

    /// Disables sharing for members; a member sharing now stops.
    func disableShare(_ uid: String, disabled: Bool) throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        room.shareDisabled = disabled
        if disabled {
            for m in members.values where m.info.role == .member { endShares(m.info.uid, by: uid) }
        }
        broadcastRoom(["share_disabled"], by: uid)
        return roomSnapshot
    }

    /// Removes a member: it gets `kicked`, the others `user_exited` (`kicked`), and it is removed
    /// from the SRTC channel too.
    func kick(_ uid: String, target targetUid: String) async throws(MeetingErrorBody) {
        let a = try admin(uid)
        let t = try target(targetUid, by: a)
        try await removeKicked(t, by: uid)
    }

    /// Removes a kicked member from the meeting and from the SRTC channel it is in; returns once
    /// it is out of the channel.
    func removeKicked(_ t: Member, by uid: String?) async throws(MeetingErrorBody) {
        let key = channelKey(for: t.info.subMeetingId)
        t.connection.send(.kicked, ByEvent(by: uid))
        remove(t.info.uid, reason: .kicked, notifyRemoved: true)
        commands.enqueue(.kick(key, uid: t.info.uid, message: "removed from the meeting"))
        await commands.flush()
    }

    /// Makes a member co-host, or back to member (host only).
    func setCoHost(_ uid: String, target targetUid: String, enable: Bool) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid, hostOnly: true)
        let t = try target(targetUid, by: a)
        if enable { coHosts.insert(targetUid) } else { coHosts.remove(targetUid) }
        let info = update(targetUid, ["role"], by: uid) { $0.role = enable ? .coHost : .member } ?? t.info
        if enable { sendWaitingList(to: targetUid) }
        return info
    }

    /// Hands the host role to another member; the caller becomes a member (host only).
    func transferHost(_ uid: String, target targetUid: String) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid, hostOnly: true)
        let t = try target(targetUid, by: a)
        coHosts.remove(targetUid)
        room.hostUid = targetUid
        update(uid, ["role"], by: uid) { $0.role = .member }
        let info = update(targetUid, ["role"], by: uid) { $0.role = .host } ?? t.info
        broadcastRoom(["host_uid"], by: uid)
        sendWaitingList(to: targetUid)
        return info
    }

    /// Asks a member to open its mic or camera: it gets `admin_request` and may confirm with
    /// `by_admin: true, admin_uid`.
    func requestOpen(_ uid: String, target targetUid: String, kind: AdminRequestKind) throws(MeetingErrorBody) {
        let a = try admin(uid)
        let t = try target(targetUid, by: a)
        members[targetUid]?.pending[kind] = uid
        t.connection.send(.adminRequest, AdminRequestEvent(kind: kind, adminUid: uid))
    }

    func closeMember(_ uid: String, target targetUid: String, _ what: AdminCloseKind) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid)
        _ = try target(targetUid, by: a)
        switch what {
        case .mic: return try closeMic(targetUid, by: uid)
        case .camera: return try closeCamera(targetUid, by: uid)
        case .share:
            endShares(targetUid, by: uid)
            return try member(targetUid).info
        case .hand: return try setHand(targetUid, raised: false, by: uid)
        }
    }

    /// Names a presenter of a training meeting (or takes it back: its devices and share close).
    func setPresenter(_ uid: String, target targetUid: String, enable: Bool) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid)
        let t = try target(targetUid, by: a)
        if enable { presenters.insert(targetUid) } else { presenters.remove(targetUid) }
        let info = update(targetUid, ["presenter"], by: uid) { $0.presenter = enable } ?? t.info
        if !enable { enforceMode(by: uid) }
        return members[targetUid]?.info ?? info
    }

    /// Approves a raised hand: the member becomes a presenter and its hand is lowered.
    func approveHand(_ uid: String, target targetUid: String) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid)
        let t = try target(targetUid, by: a)
        guard t.info.handRaised else { throw MeetingErrorBody(.wrongState, "\(targetUid) has not raised a hand") }
        presenters.insert(targetUid)
        return update(targetUid, ["presenter", "hand_raised"], by: uid) { $0.presenter = true; $0.handRaised = false } ?? t.info
    }

    /// Stops (or allows again) one member's drawing on the whiteboard.
    func disableDraw(_ uid: String, target targetUid: String, disabled: Bool) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid)
        let t = try target(targetUid, by: a, allowSelf: true)
        return update(targetUid, ["draw_disabled"], by: uid) { $0.drawDisabled = disabled } ?? t.info
    }

    /// Disables (or enables again) chat for one member.
    func disableChat(_ uid: String, target targetUid: String, disabled: Bool) throws(MeetingErrorBody) -> MeetingUserInfo {
        let a = try admin(uid)
        let t = try target(targetUid, by: a)
        return update(targetUid, ["chat_disabled"], by: uid) { $0.chatDisabled = disabled } ?? t.info
    }

    /// Ends the meeting for everyone (host only).
    func adminEnd(_ uid: String) async throws(MeetingErrorBody) {
        _ = try admin(uid, hostOnly: true)
        await end(by: uid)
    }
}

/// What an admin closes on a member.
enum AdminCloseKind {
    case mic, camera, share, hand
}
