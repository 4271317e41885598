import Foundation
import RTCCrypto
import RTCNet
import SMeetingProtocol
import Synchronization

/// One client's meeting WebSocket (docs/meeting-protocol.md): `login` first, then meeting
/// management and, once entered, in-meeting requests, answered in arrival order.
final class MeetingSession: MeetingConnection, Sendable {
    struct State {
        var appId: String?
        var uid: String?
        var nickname = ""
        var room: MeetingRoom?
    }

    static let loginTimeoutSeconds = 10
    static let maxBadMessagesPer10s = 20

    let socket: WebSocket
    let reader: WebSocketSessionReader
    let service: MeetingService
    let state = Mutex(State())

    init(socket: WebSocket, service: MeetingService) {
        self.socket = socket
        self.reader = WebSocketSessionReader(socket: socket, admission: "login", admissionTimeout: .seconds(Self.loginTimeoutSeconds),
                                             maxBadMessagesPer10s: Self.maxBadMessagesPer10s)
        self.service = service
    }

    // MARK: - MeetingConnection

    func send(text: String) { socket.send(text: text) }

    func removed(from room: MeetingRoom) {
        state.withLock { if $0.room === room { $0.room = nil } }
    }

    // MARK: - Reading

    /// Starts reading; the session lives until the socket closes.
    func start() {
        reader.start(admitted: { [self] in state.withLock { $0.uid != nil } },
                     onBadMessage: { [reader] _ in reader.countBadMessage() },
                     receive: { [self] in await receive($0) },
                     closed: { [self] in
                         let (room, uid) = state.withLock { ($0.room, $0.uid) }
                         if let room, let uid { await room.exit(uid: uid, connection: self, reason: .disconnected) }
                     })
    }

    private func receive(_ text: String) async {
        let head: MeetingCodec.Head
        do { head = try MeetingCodec.head(of: text) } catch {
            badMessage()
            return
        }
        guard let id = head.id, let typeName = head.type else {
            badMessage()
            return
        }
        guard let type = MeetingRequestType(rawValue: typeName) else {
            send(text: MeetingCodec.failure(id: id, type: typeName, MeetingErrorBody(.malformedBody, "unknown type \(typeName.prefix(64))")))
            badMessage()
            return
        }
        do {
            let data = try await handle(type, text)
            send(text: MeetingCodec.success(id: id, type: typeName, data))
        } catch {
            if error.code == MeetingErrorCode.malformedBody.rawValue { badMessage() }
            send(text: MeetingCodec.failure(id: id, type: typeName, error))
        }
    }

    private func badMessage() {
        reader.countBadMessage()
    }

    // MARK: - Requests

    private func handle(_ type: MeetingRequestType, _ text: String) async throws(MeetingErrorBody) -> any Encodable & Sendable {
        if type == .ping { return PongResp(serverTime: Int64(Date().timeIntervalSince1970 * 1000)) }
        if type == .login { return try login(MeetingCodec.payload(LoginReq.self, from: text)) }
        let (appId, uid, nickname, room) = state.withLock { ($0.appId, $0.uid, $0.nickname, $0.room) }
        guard let appId, let uid else { throw MeetingErrorBody(.wrongState, "send login first") }
        let store = service.store
        switch type {
        case .login, .ping:
            throw MeetingErrorBody(.internalError, "unreachable")
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
        case .enterRoom:
            guard room == nil else { throw MeetingErrorBody(.wrongState, "already in a meeting; exit it first") }
            let req = try MeetingCodec.payload(MeetingEnterReq.self, from: text)
            let (entered, response) = try await service.enter(appId: appId, uid: uid, nickname: nickname, req, connection: self)
            state.withLock { $0.room = entered }
            return response
        case .exitRoom:
            guard let room else { throw MeetingErrorBody(.notInMeeting, "not in a meeting") }
            state.withLock { if $0.room === room { $0.room = nil } }
            await room.exit(uid: uid, connection: self, reason: .exit)
            return EmptyPayload()
        default:
            guard let room else { throw MeetingErrorBody(.notInMeeting, "not in a meeting") }
            return try await inMeeting(type, text, room: room, uid: uid)
        }
    }

    private func login(_ req: LoginReq) throws(MeetingErrorBody) -> LoginResp {
        guard state.withLock({ $0.uid == nil }) else { throw MeetingErrorBody(.wrongState, "already logged in") }
        let claims = try service.verifyMember(req.token)
        let nickname = claims.member?.nickname.flatMap { $0.isEmpty ? nil : $0 } ?? claims.sub
        state.withLock {
            $0.appId = claims.iss
            $0.uid = claims.sub
            $0.nickname = nickname
        }
        return LoginResp(uid: claims.sub, nickname: nickname, serverTime: Int64(Date().timeIntervalSince1970 * 1000))
    }

    private func inMeeting(_ type: MeetingRequestType, _ text: String, room: MeetingRoom, uid: String) async throws(MeetingErrorBody) -> any Encodable & Sendable {
        func target() throws(MeetingErrorBody) -> TargetReq { try MeetingCodec.payload(TargetReq.self, from: text) }
        func policy() throws(MeetingErrorBody) -> Bool { try MeetingCodec.payload(PolicyReq.self, from: text).allow }
        switch type {
        case .requestOpenMic: return try await room.requestOpenMic(uid, MeetingCodec.payload(OpenReq.self, from: text))
        case .closeMic: return try await room.closeMic(uid)
        case .requestOpenCamera: return try await room.requestOpenCamera(uid, MeetingCodec.payload(OpenReq.self, from: text))
        case .closeCamera: return try await room.closeCamera(uid)
        case .requestShare: return try await room.requestShare(uid, MeetingCodec.payload(ShareReq.self, from: text))
        case .stopShare: return try await room.stopShare(uid)
        case .raiseHand: return try await room.setHand(uid, raised: true)
        case .lowerHand: return try await room.setHand(uid, raised: false)
        case .sendChat:
            return try await room.chat(uid, MeetingCodec.payload(ChatReq.self, from: text), messageId: "CM" + SecureRandom.string(count: 16))
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
        case .adminEndRoom:
            try await room.adminEnd(uid)
            return EmptyPayload()
        default:
            throw MeetingErrorBody(.internalError, "unhandled \(type.rawValue)")
        }
    }
}
