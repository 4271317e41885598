import Foundation
import RTCCrypto
import RTCNet
import SMeetingProtocol
import Synchronization

/// One meeting WebSocket: reads requests in arrival order (RTCNet's `WebSocketSessionReader`, the
/// signaling session's read loop too), logs in (a new session, or a resumed one when `login`
/// names a session still in its grace period), then hands every request to the session and
/// answers it. A socket without `login` for 10 s, or with more than 20 bad messages in 10 s, is
/// closed (1008).
final class MeetingSocketHandler: Sendable {
    private struct State {
        var session: MeetingSession?
    }

    static let loginTimeoutSeconds = 10
    static let maxBadMessagesPer10s = 20

    let socket: WebSocket
    let service: MeetingService
    private let reader: WebSocketSessionReader
    private let state = Mutex(State())

    init(socket: WebSocket, service: MeetingService) {
        self.socket = socket
        self.service = service
        reader = WebSocketSessionReader(socket: socket, admission: "login", admissionTimeout: .seconds(Self.loginTimeoutSeconds),
                                        maxBadMessagesPer10s: Self.maxBadMessagesPer10s)
    }

    /// Starts reading; the handler lives until the socket closes.
    func start() {
        reader.start(admitted: { [self] in state.withLock { $0.session != nil } },
                     onBadMessage: { [self] _ in badMessage() },
                     receive: { [self] in await receive($0) },
                     closed: { [self] in state.withLock { $0.session }?.detach(socket) })
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
            respond(MeetingCodec.failure(id: id, type: typeName, MeetingErrorBody(.malformedBody, "unknown type \(typeName.prefix(64))")))
            badMessage()
            return
        }
        do throws(MeetingErrorBody) {
            let session = state.withLock { $0.session }
            if type == .login, session == nil {
                try login(id: id, MeetingCodec.payload(LoginReq.self, from: text))
                return
            }
            guard let session else { throw MeetingErrorBody(.wrongState, "send login first") }
            let data = try await session.handle(type, text)
            respond(MeetingCodec.success(id: id, type: typeName, data))
            if type == .logout { socket.close(code: .normalClosure, reason: "logout") }
        } catch {
            if error.code == MeetingErrorCode.malformedBody.rawValue { badMessage() }
            respond(MeetingCodec.failure(id: id, type: typeName, error))
        }
    }

    private func respond(_ text: String) { socket.send(text: text) }

    /// Logs in: resumes the session `session_id` names when it is this member's and still kept
    /// with every event after `last_seq`; otherwise starts a new session (ending the old one).
    private func login(id: Int, _ req: LoginReq) throws(MeetingErrorBody) {
        let claims = try service.verifyMember(req.token)
        let nickname = claims.member?.nickname.flatMap { $0.isEmpty ? nil : $0 } ?? claims.sub
        let now = MeetingRoom.nowMilliseconds()
        if let sessionId = req.sessionId, let old = service.sessions.find(sessionId), old.appId == claims.iss, old.uid == claims.sub {
            let answer = LoginResp(uid: old.uid, nickname: old.nickname, serverTime: now, sessionId: old.id, resumed: true,
                                   reconnectGraceSeconds: service.graceSeconds)
            if old.resume(on: socket, lastSeq: req.lastSeq ?? 0, response: MeetingCodec.success(id: id, type: "login", answer)) {
                state.withLock { $0.session = old }
                return
            }
            old.closeSocket(reason: "session could not be resumed")
            Task { await old.end(reason: .disconnected) }
        }
        let session = MeetingSession(id: "MS" + SecureRandom.string(count: 20), appId: claims.iss, uid: claims.sub, nickname: nickname,
                                     socket: socket, service: service)
        service.sessions.add(session)
        state.withLock { $0.session = session }
        respond(MeetingCodec.success(id: id, type: "login", LoginResp(uid: claims.sub, nickname: nickname, serverTime: now, sessionId: session.id,
                                                                        reconnectGraceSeconds: service.graceSeconds)))
    }

    /// Counts a malformed message; too many in 10 s closes the socket with 1008 (the reader's limit).
    private func badMessage() {
        reader.countBadMessage()
    }
}
