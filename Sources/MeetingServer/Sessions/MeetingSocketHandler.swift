import Foundation
import RTCCrypto
import RTCNet
import SMeetingProtocol
import SRTCServer
import Synchronization

/// One meeting WebSocket: reads requests in arrival order (RTCNet's `WebSocketSessionReader`, the
/// signaling session's read loop too), logs in (a new session, or a resumed one when `login`
/// names a session still in its grace period), then hands every request to the session and
/// answers it. A socket without `login` for 10 s, or with more than 20 bad messages in 10 s, is
/// closed (1008).
final class MeetingSocketHandler: Sendable {
    private struct State {
        var session: MeetingSession?
        /// The `login` that admitted this socket (its token logs in at a meeting's node when relaying).
        var login: LoginReq?
        /// The meeting's node's socket, once this node relays the session (`+Relay`).
        var upstream: WebSocket?
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
        reader.start(admitted: { [self] in state.withLock { $0.session != nil || $0.upstream != nil } },
                     onBadMessage: { [self] _ in badMessage() },
                     receive: { [self] in await receive($0) },
                     closed: { [self] in
                         let (session, upstream) = state.withLock { ($0.session, $0.upstream) }
                         session?.detach(socket)
                         upstream?.close(code: .goingAway, reason: "client left")
                     })
    }

    private func receive(_ text: String) async {
        if let upstream = state.withLock({ $0.upstream }) {
            upstream.send(text: text)
            return
        }
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
                try await login(id: id, MeetingCodec.payload(LoginReq.self, from: text), text: text)
                return
            }
            guard let session else { throw MeetingErrorBody(.wrongState, "send login first") }
            if type == .enterRoom, try await relayToMeetingsNode(text, session: session) { return }
            let data = try await session.handle(type, text)
            respond(MeetingCodec.success(id: id, type: typeName, data))
            if type == .logout { socket.close(code: .normalClosure, reason: "logout") }
        } catch {
            if error.code == MeetingErrorCode.malformedBody.rawValue { badMessage() }
            respond(MeetingCodec.failure(id: id, type: typeName, error))
        }
    }

    private func respond(_ text: String) { socket.send(text: text) }

    /// On a cluster, a meeting's live room runs on the node that runs its channel
    /// (`mt_<meeting_id>`): entering a meeting another node runs hands the session to that node
    /// and relays this socket there. The session's record names that node first (`handoff`), then
    /// the node gets a `login` with the session's id (whose answer the client does not see: it has
    /// one) and takes the session over under that id, and then the `enter_room`; the local
    /// session ends without leaving anything. `false` when the meeting runs here (or on a single node).
    private func relayToMeetingsNode(_ text: String, session: MeetingSession) async throws(MeetingErrorBody) -> Bool {
        guard let cluster = service.cluster, let login = state.withLock({ $0.login }) else { return false }
        let req = try MeetingCodec.payload(MeetingEnterReq.self, from: text)
        let meeting = try service.store.meeting(appId: session.appId, ref: MeetingRef(meetingId: req.meetingId, roomNo: req.roomNo))
        let channel = ChannelKey(appId: session.appId, name: MeetingRoom.channelName(meeting.meetingId))
        let node: NodeInfo?
        do { node = try await cluster.node(running: channel) } catch {
            throw MeetingErrorBody(.internalError, "no node can take the meeting: \(error)")
        }
        guard let node else { return false }
        do {
            try await service.handOffSession(session.id, appId: session.appId, uid: session.uid, to: node.id, nextSeq: session.nextSeq)
        } catch {
            throw MeetingErrorBody(.internalError, "the meeting's node cannot be reached; retry")
        }
        let loginId = 0
        let takeOver = MeetingCodec.request(id: loginId, type: .login, LoginReq(token: login.token, sessionId: session.id))
        let skip: @Sendable (String) -> Bool = { answer in
            guard let head = try? MeetingCodec.head(of: answer) else { return false }
            return head.type == MeetingRequestType.login.rawValue && head.id == loginId
        }
        guard let upstream = await WebSocketRelay.open(nodeURL: node.httpURL, path: MeetingModule.webSocketPath, sending: [takeOver, text],
                                                       to: socket, maxMessageSize: MeetingCodec.maxMessageBytes, skip: skip) else {
            // The session stays here; its record names it here again.
            service.recordSession(session)
            throw MeetingErrorBody(.internalError, "the meeting's node cannot be reached; retry")
        }
        state.withLock {
            $0.upstream = upstream
            $0.session = nil
        }
        session.release()
        return true
    }

    /// Relays this socket, from its `login` (`text`) on, to the node at `nodeURL` that runs the
    /// session the login names; `false` when that node cannot be reached.
    private func relayLogin(_ text: String, to nodeURL: String) async -> Bool {
        guard let upstream = await WebSocketRelay.open(nodeURL: nodeURL, path: MeetingModule.webSocketPath, sending: [text], to: socket,
                                                       maxMessageSize: MeetingCodec.maxMessageBytes) else { return false }
        state.withLock { $0.upstream = upstream }
        return true
    }

    /// Logs in: resumes the session `session_id` names when it is this member's and still kept
    /// with every event after `last_seq`; otherwise starts a new session (ending the old one). On
    /// a cluster, a session another node runs is resumed there (this socket is relayed to it, the
    /// `login` included); one whose node is gone is answered `rejoin` (docs/meeting-protocol.md,
    /// "Resuming a session").
    private func login(id: Int, _ req: LoginReq, text: String) async throws(MeetingErrorBody) {
        // Not on a cluster: a meeting's node gets the logins of every client another node relays
        // from that node's address, and would hold them all to one address's rate.
        if service.cluster == nil, let address = socket.remoteAddress, !service.addressLogins.admits(address.with(port: 0)) {
            throw MeetingErrorBody(.rateLimited, "too many logins from this address; retry in a second")
        }
        let claims = try service.verifyMember(req.token)
        let nickname = claims.member?.nickname.flatMap { $0.isEmpty ? nil : $0 } ?? claims.sub
        let now = MeetingService.nowMilliseconds()
        var rejoin = false, nextSeq = 1, sessionId: String?
        if let requested = req.sessionId {
            if let old = service.sessions.find(requested), old.appId == claims.iss, old.uid == claims.sub {
                let answer = LoginResp(uid: old.uid, nickname: old.nickname, serverTime: now, sessionId: old.id, resumed: true,
                                       reconnectGraceSeconds: service.graceSeconds)
                if old.resume(on: socket, lastSeq: req.lastSeq ?? 0, response: MeetingCodec.success(id: id, type: "login", answer)) {
                    state.withLock { $0.session = old; $0.login = req }
                    return
                }
                old.closeSocket(reason: "session could not be resumed")
                Task { await old.end(reason: .disconnected) }
            } else if let cluster = service.cluster, let record = await service.sessionRecord(requested, appId: claims.iss, uid: claims.sub) {
                if record.node == cluster.nodeId, record.handoff == true {
                    // Another node hands the session over (it relays this socket here).
                    sessionId = requested
                    nextSeq = record.nextSeq ?? 1
                } else if record.node != cluster.nodeId, let url = await cluster.liveNodeURL(id: record.node), await relayLogin(text, to: url) {
                    return
                } else {
                    // Its node drained, died or lost it: a new session, and the client enters again.
                    rejoin = true
                }
            }
        }
        let session = MeetingSession(id: sessionId ?? "MS" + SecureRandom.string(count: 20), appId: claims.iss, uid: claims.sub,
                                     nickname: nickname, socket: socket, service: service, nextSeq: nextSeq)
        service.sessions.add(session)
        service.recordSession(session)
        state.withLock { $0.session = session; $0.login = req }
        respond(MeetingCodec.success(id: id, type: "login", LoginResp(uid: claims.sub, nickname: nickname, serverTime: now, sessionId: session.id,
                                                                        resumed: sessionId != nil, rejoin: rejoin ? true : nil,
                                                                        reconnectGraceSeconds: service.graceSeconds)))
    }

    /// Counts a malformed message; too many in 10 s closes the socket with 1008 (the reader's limit).
    private func badMessage() {
        reader.countBadMessage()
    }
}
