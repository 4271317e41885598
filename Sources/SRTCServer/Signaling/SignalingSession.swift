import Foundation
import RTCNet
import SRTCProtocol
import Synchronization

/// One client's signaling WebSocket (docs/protocol.md): admits it with `join`, then forwards its
/// requests to its channel room in arrival order and answers each.
final class SignalingSession: Sendable {
    private struct State {
        var room: ChannelRoom?
        var uid: String?
        var sessionId: String?
        var left = false
        /// The owner node's signaling socket, when this node relays the session (`+Relay`).
        var upstream: WebSocket?
        /// A `join` is being handled: the client sent it in time, however long the server takes.
        var joining = false
        /// The join deadline passed while a `join` was being handled: closed if that join fails.
        var deadlinePassedWhileJoining = false
    }

    /// Whether the session is admitted, asked at the join deadline (`joinTimeoutSeconds` bounds
    /// the wait for the client's `join`, not the server's work on it: a join that took longer on a
    /// loaded server was once closed before its answer).
    private func admittedAtDeadline() -> Bool {
        state.withLock { s in
            if s.room != nil || s.upstream != nil { return true }
            if s.joining { s.deadlinePassedWhileJoining = true }
            return s.joining
        }
    }

    let socket: WebSocket
    private let reader: WebSocketSessionReader
    private let connection: WebSocketSignalConnection
    private let manager: ChannelManager
    private let apps: AppStore
    let limits: ChannelLimits
    let preverifiedToken: String?
    private let metrics: Metrics
    private let turn: TURNCredentialIssuer?
    /// This node's cluster membership (`--redis-url`), which says where each channel runs.
    let cluster: ClusterNode?
    /// Relayed clients whose subscriptions this node may serve (`+Relay`).
    let edgeClients: EdgeClients?
    private let state = Mutex(State())

    /// - Parameter relayingNode: the node that relays this socket from its client (`via`), if any.
    init(socket: WebSocket, manager: ChannelManager, apps: AppStore, limits: ChannelLimits, preverifiedToken: String?, metrics: Metrics,
         turn: TURNCredentialIssuer? = nil, cluster: ClusterNode? = nil, edgeClients: EdgeClients? = nil, relayingNode: String? = nil) {
        self.turn = turn
        self.cluster = cluster
        self.edgeClients = edgeClients
        self.socket = socket
        self.reader = WebSocketSessionReader(socket: socket, admission: "join", admissionTimeout: .seconds(limits.joinTimeoutSeconds),
                                             maxBadMessagesPer10s: limits.maxBadMessagesPer10s, timers: manager.timers)
        self.connection = WebSocketSignalConnection(socket: socket, relayingNode: relayingNode)
        self.manager = manager
        self.apps = apps
        self.limits = limits
        self.preverifiedToken = preverifiedToken
        self.metrics = metrics
    }

    /// Starts reading; returns at once. The session lives until the socket closes.
    func start() {
        reader.start(admitted: { [self] in admittedAtDeadline() },
                     onBadMessage: { [self] in badMessage($0) },
                     receive: { [self] in await receive($0) },
                     closed: { [self] in await socketClosed() })
    }

    private func receive(_ text: String) async {
        if let upstream = state.withLock({ $0.upstream }) {
            upstream.send(text: text)
            return
        }
        let request: ClientRequest
        do {
            request = try SignalCodec.decodeClientRequest(text, maxBytes: limits.maxSignalMessageBytes)
        } catch {
            if let id = error.requestId {
                respond(id: id, type: typeName(of: text) ?? "unknown", .failure(SignalError(.malformedBody, error.description)))
            }
            badMessage(error.description)
            return
        }
        let (room, uid, sessionId) = state.withLock { ($0.room, $0.uid, $0.sessionId) }
        guard let room, let uid, let sessionId else {
            guard case .join(let join) = request.body else {
                respond(id: request.id, type: request.body.typeName, .failure(SignalError(.wrongState, "send join first")))
                return
            }
            state.withLock { $0.joining = true }
            await handleJoin(join, id: request.id, text: text)
            let late = state.withLock { s -> Bool in
                s.joining = false
                return s.deadlinePassedWhileJoining && s.room == nil && s.upstream == nil
            }
            if late { socket.close(code: .policyViolation, reason: "no join within \(limits.joinTimeoutSeconds) s") }
            return
        }
        // The room sends the response itself, in order with its events.
        let result = await room.handle(request, uid: uid, sessionId: sessionId, connection: connection)
        if case .leave = request.body, case .success = result {
            state.withLock { $0.left = true }
            socket.close(code: .normalClosure, reason: "left")
        }
    }

    private func handleJoin(_ join: JoinRequest, id: Int, text: String) async {
        guard manager.admitsJoin(from: socket.remoteAddress) else {
            respond(id: id, type: "join", .failure(SignalError(.rateLimited, "too many joins from this address; retry shortly")))
            return
        }
        let now = Int64(Date().timeIntervalSince1970)
        let token = join.token.isEmpty ? (preverifiedToken ?? "") : join.token
        let claims: TokenClaims
        do {
            claims = try AccessToken.verify(token, now: now, leeway: limits.tokenLeewaySeconds) { [apps] in apps.app(id: $0)?.appKey }
        } catch {
            metrics.recordAuthFailure(cause: error.code.name)
            respond(id: id, type: "join", .failure(SignalError(error.code, "token refused: \(error)")))
            socket.close(code: .policyViolation, reason: error.code.name)
            return
        }
        guard let grant = claims.grant, Identifier.isValid(grant.channel), Identifier.isValid(claims.sub) else {
            respond(id: id, type: "join", .failure(SignalError(.invalidToken, "token has no valid channel grant")))
            socket.close(code: .policyViolation, reason: "invalid_token")
            return
        }
        guard join.protocolVersion == signalingProtocolVersion else {
            respond(id: id, type: "join", .failure(SignalError(.invalidParameter, "protocol \(join.protocolVersion) is not supported; this server speaks \(signalingProtocolVersion)")))
            return
        }
        let key = ChannelKey(appId: claims.iss, name: grant.channel)
        if let cluster {
            do {
                let owner = try await cluster.directory.owner(of: key)
                if owner.id != cluster.registry.nodeId {
                    if await relay(join: text, to: owner, key: key, uid: claims.sub) { return }
                    respond(id: id, type: "join", .failure(SignalError(.internalError, "the channel's node cannot be reached; retry")))
                    return
                }
            } catch {
                respond(id: id, type: "join", .failure(SignalError(.internalError, "no node can take the channel: \(error)")))
                return
            }
        }
        let iceServers = turn?.iceServers(uid: claims.sub, now: now) ?? []
        // The user's own seal key (docs/sealed-strings.md), for the SDK's `decrypt`.
        let sealKey = apps.app(id: claims.iss).map { SealKey.encoded(appKey: $0.appKey, appId: claims.iss, uid: claims.sub) }
        switch await manager.join(key, join, claims: claims, connection: connection, requestId: id, iceServers: iceServers, sealKey: sealKey) {
        case .success(let (room, response)):
            state.withLock {
                $0.room = room
                $0.uid = response.me.uid
                $0.sessionId = response.sessionId
            }
        case .failure(let error):
            respond(id: id, type: "join", .failure(error))
        }
    }

    private func socketClosed() async {
        state.withLock { $0.upstream }?.close(code: .goingAway, reason: "client left")
        let (room, uid, sessionId, left) = state.withLock { ($0.room, $0.uid, $0.sessionId, $0.left) }
        guard let room, let uid, let sessionId, !left else { return }
        await room.connectionLost(uid: uid, sessionId: sessionId, connection: connection)
    }

    func setUpstream(_ upstream: WebSocket) { state.withLock { $0.upstream = upstream } }

    /// The client's side as the channel layer sees it (this node relays it, `+Relay`).
    var clientConnection: SignalConnection { connection }

    private func respond(id: Int, type: String, _ result: Result<ResponseData, SignalError>) {
        connection.send(.response(id: id, Response(type: type, result: result)))
    }

    /// Counts a malformed message (metrics, and the reader's limit).
    private func badMessage(_ why: String) {
        metrics.recordAuthFailure(cause: "malformed_signal")
        reader.countBadMessage()
    }

    /// The `type` of a message that failed to decode, to echo in the error response.
    private func typeName(of text: String) -> String? {
        struct Probe: Decodable { var type: String }
        return try? JSONDecoder().decode(Probe.self, from: Data(text.utf8)).type
    }
}

/// `SignalConnection` over an RTCNet WebSocket.
final class WebSocketSignalConnection: SignalConnection {
    let socket: WebSocket
    let relayingNode: String?
    init(socket: WebSocket, relayingNode: String? = nil) {
        self.socket = socket
        self.relayingNode = relayingNode
    }
    func send(text: String) { socket.send(text: text) }
    func close(code: UInt16, reason: String) { socket.close(code: WebSocketCloseCode(rawValue: code), reason: reason) }
}
