import Foundation
import RTCNet
import RTCWire
import SRTCProtocol

/// Connects the HTTP server to the API router (fast path on the I/O thread where possible) and
/// the signaling WebSocket endpoint.
struct ServerHTTPDelegate: HTTPServerDelegate {
    static let signalingPath = "/rtc/v1/ws"

    let router: APIRouter
    let manager: ChannelManager
    let apps: AppStore
    let limits: ChannelLimits
    let metrics: Metrics
    /// Modules answering WebSocket paths of their own.
    var modules: [any ServerModule] = []
    /// The speed test's WebSocket carrier (`/rtc/v1/speedtest`), when speed tests are on.
    var speedTest: SpeedTestSettings?
    let speedTestSockets = SpeedTestSocketCount()
    /// TURN credentials for join responses, when configured.
    var turn: TURNCredentialIssuer?
    /// Cluster membership, when `--redis-url` is set (sessions of channels owned elsewhere are relayed).
    var cluster: ClusterNode?
    /// The relayed clients whose subscriptions this node may serve (`EdgeService`).
    var edgeClients: EdgeClients?

    func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        router.handleImmediately(request)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        await router.handle(request)
    }

    /// Requests the HTTP parser refuses get the API's JSON error body too.
    func refusal(_ error: HTTPParserError) -> HTTPResponse? {
        let code: APIErrorCode = error.status == 413 ? .payloadTooLarge : .malformedBody
        var response = APIRouter.error(code, "HTTP request refused: \(error.description)", now: Int64(Date().timeIntervalSince1970))
        response.status = error.status
        return response
    }

    func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        let now = Int64(Date().timeIntervalSince1970)
        if request.path != Self.signalingPath, let module = modules.first(where: { $0.webSocketPaths.contains(String(request.path)) }) {
            return await module.upgrade(request)
        }
        if request.path == SpeedTestSocket.path, let settings = speedTest {
            let configuration = WebSocketConfiguration(maxMessageSize: SpeedTestPacket.maximumSize, pingInterval: .seconds(15))
            return .accept(configuration: configuration) { [apps, speedTestSockets] socket in
                SpeedTestSocket(socket: socket, settings: settings, sessions: speedTestSockets, keyForIssuer: { apps.app(id: $0)?.appKey }).start()
            }
        }
        guard request.path == Self.signalingPath else {
            return .reject(APIRouter.error(.notFound, "no WebSocket endpoint at \(request.path)", now: now))
        }
        if manager.handsOff {
            // Drained: a client moving off this node (or any new one) must reach another node,
            // not be relayed by this one, which is about to stop (docs/deploy.md, "Drain and failover").
            Log.info("cluster", "refused a signaling WebSocket from \(request.remoteAddress.map { "\($0)" } ?? "?"): this node is draining")
            var refusal = APIRouter.error(.internalError, "this node is draining; connect to another node", now: now)
            refusal.status = 503
            return .reject(refusal)
        }
        let token = request.queryParameter("token")
        if let token, !token.isEmpty {
            do {
                _ = try AccessToken.verify(token, now: now, leeway: limits.tokenLeewaySeconds) { [apps] in apps.app(id: $0)?.appKey }
            } catch {
                metrics.recordAuthFailure(cause: error.code.name)
                return .reject(APIRouter.error(error.code, "token refused: \(error)", now: now))
            }
        }
        let configuration = WebSocketConfiguration(maxMessageSize: limits.maxSignalMessageBytes, pingInterval: .seconds(15))
        // Set by a node relaying the session (SignalingSession+Relay); only a live node's id is
        // ever used (a relayed session's subscriptions may be served there).
        let via = cluster == nil ? nil : request.queryParameter("via").flatMap { Identifier.isValid($0) ? $0 : nil }
        return .accept(configuration: configuration) { [manager, apps, limits, metrics, turn, cluster, edgeClients] socket in
            SignalingSession(socket: socket, manager: manager, apps: apps, limits: limits, preverifiedToken: token, metrics: metrics,
                             turn: turn, cluster: cluster, edgeClients: edgeClients, relayingNode: via).start()
        }
    }
}
