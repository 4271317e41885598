import Foundation
import RTCCrypto
import RTCNet
import SRTCProtocol
import SRTCServer
import Synchronization

/// One client's IM WebSocket (docs/im.md): `login` first, then requests answered in arrival
/// order (RTCNet's `WebSocketSessionReader`, the read loop of signaling and meeting sessions);
/// mailbox entries arrive as `message` events.
final class IMSession: IMConnection, Sendable {
    struct State {
        var appId: String?
        var uid: String?
        /// Request tokens (a bucket of `requestsPerSecond`, refilled continuously).
        var tokens: Double
        var refilledAt: Double
    }

    static let loginTimeoutSeconds = 10
    static let maxBadMessagesPer10s = 20

    let socket: WebSocket
    let service: IMService
    let apps: AppStore
    let settings: IMSettings
    let sessionId = "IS" + SecureRandom.string(count: 16)
    private let reader: WebSocketSessionReader
    private let state: Mutex<State>

    init(socket: WebSocket, service: IMService, apps: AppStore, settings: IMSettings) {
        self.socket = socket
        self.service = service
        self.apps = apps
        self.settings = settings
        reader = WebSocketSessionReader(socket: socket, admission: "login", admissionTimeout: .seconds(Self.loginTimeoutSeconds),
                                        maxBadMessagesPer10s: Self.maxBadMessagesPer10s)
        state = Mutex(State(tokens: Double(settings.requestsPerSecond), refilledAt: Date().timeIntervalSince1970))
    }

    /// The largest message: content plus room for the envelope and the other fields.
    static func maxMessageBytes(_ settings: IMSettings) -> Int { 3 * settings.maxContentBytes + 16 * 1024 }

    func send(text: String) { socket.send(text: text) }

    /// Starts reading; the session lives until the socket closes.
    func start() {
        reader.start(admitted: { [self] in state.withLock { $0.uid != nil } },
                     onBadMessage: { [self] _ in badMessage() },
                     receive: { [self] in await receive($0) },
                     closed: { [self] in
                         if let (appId, uid) = state.withLock({ s in s.uid.map { (s.appId ?? "", $0) } }) {
                             await service.logout(self, appId: appId, uid: uid)
                         }
                     })
    }

    // MARK: - Requests

    private func receive(_ text: String) async {
        let head: JSONEnvelope.Head
        do { head = try JSONEnvelope.head(of: text, maxBytes: Self.maxMessageBytes(settings)) } catch {
            badMessage()
            return
        }
        guard let id = head.id, let typeName = head.type else {
            badMessage()
            return
        }
        guard let type = IMRequestType(rawValue: typeName) else {
            send(text: JSONEnvelope.failure(id: id, type: typeName, SignalError(.malformedBody, "unknown type \(typeName.prefix(64))")))
            badMessage()
            return
        }
        guard takeToken() else {
            send(text: JSONEnvelope.failure(id: id, type: typeName, SignalError(.rateLimited, "more than \(settings.requestsPerSecond) requests per second")))
            return
        }
        do {
            if type == .login {
                try await login(JSONEnvelope.payload(IMLoginRequest.self, from: text), id: id)
                return
            }
            let data = try await handle(type, text)
            send(text: JSONEnvelope.success(id: id, type: typeName, data))
        } catch {
            if error.errorCode == .malformedBody { badMessage() }
            send(text: JSONEnvelope.failure(id: id, type: typeName, error))
            if type == .login, [.invalidToken, .tokenExpired, .tokenNotYetValid].contains(error.errorCode) {
                socket.close(code: .policyViolation, reason: "login refused")
            }
        }
    }

    private func handle(_ type: IMRequestType, _ text: String) async throws(SignalError) -> any Encodable & Sendable {
        if type == .ping { return IMPong(serverTime: Int64(Date().timeIntervalSince1970 * 1000)) }
        guard let (appId, uid) = state.withLock({ s in s.uid.map { (s.appId ?? "", $0) } }) else {
            throw SignalError(.wrongState, "send login first")
        }
        switch type {
        case .send:
            return try await service.send(appId: appId, from: uid, JSONEnvelope.payload(IMSendRequest.self, from: text))
        case .ack:
            try await service.acknowledge(appId: appId, uid: uid, seq: JSONEnvelope.payload(IMAckRequest.self, from: text).seq)
            return JSONEnvelope.Empty()
        case .invite:
            return try await service.invite(appId: appId, from: uid, JSONEnvelope.payload(IMInviteRequest.self, from: text))
        case .accept, .decline, .cancel:
            try await service.answer(appId: appId, uid: uid, JSONEnvelope.payload(IMCallRequest.self, from: text), type)
            return JSONEnvelope.Empty()
        case .login, .ping:
            throw SignalError(.internalError, "unreachable")
        }
    }

    /// Verifies the token (an IM token, or an SMeeting member token for SMeeting's `enableIm()`);
    /// the service answers and replays the mailbox, in that order.
    private func login(_ req: IMLoginRequest, id: Int) async throws(SignalError) {
        guard state.withLock({ $0.uid == nil }) else { throw SignalError(.wrongState, "already logged in") }
        let claims: TokenClaims
        do {
            claims = try AccessToken.verify(req.token, now: Int64(Date().timeIntervalSince1970)) { [apps] in apps.app(id: $0)?.appKey }
        } catch {
            throw SignalError(error.code, "token refused: \(error)")
        }
        guard claims.im != nil || claims.member != nil, Identifier.isValid(claims.sub) else {
            throw SignalError(.invalidToken, "not an IM token (POST /server/v1/im/grant)")
        }
        state.withLock {
            $0.appId = claims.iss
            $0.uid = claims.sub
        }
        let sealKey = apps.app(id: claims.iss).map { SealKey.encoded(appKey: $0.appKey, appId: claims.iss, uid: claims.sub) }
        try await service.login(self, appId: claims.iss, uid: claims.sub, lastSeq: req.lastSeq, sessionId: sessionId) { response in
            var response = response
            response.sealKey = sealKey
            send(text: JSONEnvelope.success(id: id, type: IMRequestType.login.rawValue, response))
        }
    }

    // MARK: - Limits

    private func takeToken() -> Bool {
        let now = Date().timeIntervalSince1970
        let rate = Double(settings.requestsPerSecond)
        return state.withLock { s in
            s.tokens = min(rate, s.tokens + (now - s.refilledAt) * rate)
            s.refilledAt = now
            guard s.tokens >= 1 else { return false }
            s.tokens -= 1
            return true
        }
    }

    /// Counts a malformed message; too many in 10 s closes the socket with 1008 (the reader's limit).
    private func badMessage() {
        reader.countBadMessage()
    }
}
