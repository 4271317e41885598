import RTCCrypto
import SMeetingProtocol

/// The requests of a logged-in session: meeting management before the meeting, then entry and
/// everything in it (docs/meeting-protocol.md).
extension MeetingSession {
    func handle(_ type: MeetingRequestType, _ text: String) async throws(MeetingErrorBody) -> any Encodable & Sendable {
        let store = service.store
        let room = self.room
        switch type {
        case .login:
            throw MeetingErrorBody(.wrongState, "already logged in")
        case .ping:
            return PongResp(serverTime: MeetingService.nowMilliseconds())
        case .logout:
            await end(reason: .exit)
            return EmptyPayload()
        case .createRoom:
            return try store.create(appId: appId, hostUid: uid, MeetingCodec.payload(MeetingCreateReq.self, from: text))
        case .updateRoom:
            let req = try MeetingCodec.payload(UpdateRoomReq.self, from: text)
            return try await service.update(appId: appId, meetingId: req.meetingId, by: uid, req.update)
        case .cancelRoom:
            let ref = try MeetingCodec.payload(MeetingRef.self, from: text)
            return try store.cancel(appId: appId, meetingId: store.meeting(appId: appId, ref: ref).meetingId, by: uid)
        case .detailRoom:
            let ref = try MeetingCodec.payload(MeetingRef.self, from: text)
            return MeetingService.visible(try store.meeting(appId: appId, ref: ref), to: uid)
        case .attendeeRoom, .attendedRoom:
            let page = try MeetingCodec.payload(PageReq.self, from: text)
            var result = type == .attendeeRoom
                ? try store.attendee(appId: appId, uid: uid, page: page.page, pageSize: page.pageSize ?? 20)
                : try store.attended(appId: appId, uid: uid, page: page.page, pageSize: page.pageSize ?? 20)
            result.list = result.list.map { MeetingService.visible($0, to: uid) }
            return result
        case .signInResults:
            let req = try MeetingCodec.payload(SignInResultsReq.self, from: text)
            let meeting = try store.meeting(appId: appId, meetingId: req.meetingId)
            guard meeting.hostUid == uid else { throw MeetingErrorBody(.permissionDenied, "only the meeting's host may read its sign-ins") }
            return SignInResultsResp(meetingId: req.meetingId, results: try store.signIns(appId: appId, meetingId: req.meetingId))
        case .enterRoom:
            guard room == nil else { throw MeetingErrorBody(.wrongState, "already in a meeting; exit it first") }
            let req = try MeetingCodec.payload(MeetingEnterReq.self, from: text)
            let (entered, response) = try await service.enter(appId: appId, uid: uid, nickname: nickname, req, connection: self)
            setRoom(entered)
            return response
        case .exitRoom:
            guard let room else { throw MeetingErrorBody(.notInMeeting, "not in a meeting") }
            state.withLock { if $0.room === room { $0.room = nil } }
            await room.exit(uid: uid, connection: self, reason: .exit)
            return EmptyPayload()
        default:
            guard let room else { throw MeetingErrorBody(.notInMeeting, "not in a meeting") }
            let answer = try await inMeeting(type, text, room: room)
            // The answer goes out once the channels follow the change: a member told its mic is
            // open finds its hold released when it publishes or unmutes.
            await room.commands.flush()
            return answer
        }
    }

    private func inMeeting(_ type: MeetingRequestType, _ text: String, room: MeetingRoom) async throws(MeetingErrorBody) -> any Encodable & Sendable {
        func target() throws(MeetingErrorBody) -> TargetReq { try MeetingCodec.payload(TargetReq.self, from: text) }
        func policy() throws(MeetingErrorBody) -> Bool { try MeetingCodec.payload(PolicyReq.self, from: text).allow }
        func messageId() -> String { "CM" + SecureRandom.string(count: 16) }
        switch type {
        case .requestOpenMic: return try await room.requestOpenMic(uid, MeetingCodec.payload(OpenReq.self, from: text))
        case .closeMic: return try await room.closeMic(uid)
        case .requestOpenCamera: return try await room.requestOpenCamera(uid, MeetingCodec.payload(OpenReq.self, from: text))
        case .closeCamera: return try await room.closeCamera(uid)
        case .requestShare: return try await room.requestShare(uid, MeetingCodec.payload(ShareReq.self, from: text))
        case .stopShare: return try await room.stopShare(uid)
        case .startViewCapture: return try await room.startViewCapture(uid)
        case .stopViewCapture: return try await room.stopViewCapture(uid)
        case .raiseHand: return try await room.setHand(uid, raised: true)
        case .lowerHand: return try await room.setHand(uid, raised: false)
        case .sendChat: return try await room.chat(uid, MeetingCodec.payload(ChatReq.self, from: text), messageId: messageId())
        case .adminMuteAll: return try await room.muteAll(uid, allowSelfUnmute: policy())
        case .adminUnmuteAll: return try await room.unmuteAll(uid)
        case .adminCameraOffAll: return try await room.cameraOffAll(uid, allowSelfOpen: policy())
        case .adminCameraOnAll: return try await room.cameraOnAll(uid)
        case .adminLockRoom: return try await room.lock(uid, locked: policy())
        case .adminDisableShare: return try await room.disableShare(uid, disabled: policy())
        case .adminKick:
            try await room.kick(uid, target: target().uid)
            return EmptyPayload()
        case .adminSetCoHost:
            let t = try target()
            return try await room.setCoHost(uid, target: t.uid, enable: t.enable ?? true)
        case .adminTransferHost: return try await room.transferHost(uid, target: target().uid)
        case .adminRequestOpenMic, .adminRequestOpenCamera:
            try await room.requestOpen(uid, target: target().uid, kind: type == .adminRequestOpenMic ? .mic : .camera)
            return EmptyPayload()
        case .adminCloseMic: return try await room.closeMember(uid, target: target().uid, .mic)
        case .adminCloseCamera: return try await room.closeMember(uid, target: target().uid, .camera)
        case .adminStopShare: return try await room.closeMember(uid, target: target().uid, .share)
        case .adminLowerHand: return try await room.closeMember(uid, target: target().uid, .hand)
        case .adminDisableChat:
            let t = try target()
            return try await room.disableChat(uid, target: t.uid, disabled: t.enable ?? true)
        case .adminDisableDraw:
            let t = try target()
            return try await room.disableDraw(uid, target: t.uid, disabled: t.enable ?? true)
        case .adminSetPresenter:
            let t = try target()
            return try await room.setPresenter(uid, target: t.uid, enable: t.enable ?? true)
        case .adminApproveHand: return try await room.approveHand(uid, target: target().uid)
        case .adminEndRoom:
            try await room.adminEnd(uid)
            return EmptyPayload()
        case .adminStartCaptions:
            try await room.startCaptions(uid, language: MeetingCodec.payload(CaptionsReq.self, from: text).language)
            return EmptyPayload()
        case .adminStopCaptions:
            try await room.stopCaptions(uid)
            return EmptyPayload()
        case .adminCreateIngress:
            let req = try MeetingCodec.payload(CreateIngressReq.self, from: text)
            return try await room.createIngress(uid, nickname: req.nickname, subMeetingId: req.subMeetingId)
        case .adminDeleteIngress:
            return try await room.deleteIngress(uid, ingressId: MeetingCodec.payload(DeleteIngressReq.self, from: text).ingressId)
        case .adminSetWaitingRoom: return try await room.setWaitingRoom(uid, enabled: policy())
        case .adminAdmit:
            try await room.admit(target().uid, by: uid)
            return EmptyPayload()
        case .adminAdmitAll: return try await room.admitAll(uid)
        case .adminRemoveWaiting:
            try await room.removeWaiting(target().uid, by: uid)
            return EmptyPayload()
        case .adminCreateSubMeetings: return try await room.createSubMeetings(uid, titles: MeetingCodec.payload(CreateSubMeetingsReq.self, from: text).titles)
        case .adminAssignSubMeeting: return try await room.assignSubMeeting(uid, MeetingCodec.payload(AssignSubMeetingReq.self, from: text))
        case .adminAssignSubMeetingsRandomly: return try await room.assignSubMeetingsRandomly(uid)
        case .adminOpenSubMeetings: return try await room.openSubMeetings(uid)
        case .adminBroadcastSubMeetings:
            try await room.broadcastSubMeetings(uid, text: MeetingCodec.payload(BroadcastReq.self, from: text).text, messageId: messageId())
            return EmptyPayload()
        case .adminVisitSubMeeting: return try await room.visitSubMeeting(uid, MeetingCodec.payload(VisitSubMeetingReq.self, from: text).subMeetingId)
        case .requestSubMeetingHelp:
            try await room.requestSubMeetingHelp(uid)
            return EmptyPayload()
        case .adminCloseSubMeetings: return try await room.closeSubMeetings(uid, countdown: MeetingCodec.payload(CloseSubMeetingsReq.self, from: text).countdown)
        case .adminStartSignIn: return try await room.startSignIn(uid, duration: MeetingCodec.payload(StartSignInReq.self, from: text).duration)
        case .signIn: return try await room.signIn(uid, id: MeetingCodec.payload(SignInReq.self, from: text).signInId)
        case .adminEndSignIn: return try await room.endSignIn(uid)
        case .adminRollCall: return try await room.rollCall(uid, MeetingCodec.payload(RollCallReq.self, from: text))
        case .answerRollCall: return try await room.answerRollCall(uid, id: MeetingCodec.payload(SignInReq.self, from: text).signInId)
        case .login, .ping, .logout, .createRoom, .updateRoom, .cancelRoom, .detailRoom, .attendeeRoom, .attendedRoom,
             .enterRoom, .exitRoom, .signInResults:
            throw MeetingErrorBody(.internalError, "unhandled \(type.rawValue)")
        }
    }
}
