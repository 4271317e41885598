import RTCNet
import SRTCProtocol
import Synchronization

/// A part of the server built outside `SRTCServer` (the meeting backend, `MeetingServer`), added
/// to a `ServerApp` when it is created. A module adds routes to the API router (signed ones under
/// the signed prefixes are authenticated like every other route) and may serve WebSocket paths.
/// `SRTCServer` cannot import the modules built on it, so they register themselves here.
public protocol ServerModule: Sendable {
    /// Adds this module's HTTP routes.
    func registerRoutes(in builder: inout APIRouter.Builder)
    /// The WebSocket paths this module answers (`/stm/v1/ws`); the signaling path is the server's.
    var webSocketPaths: [String] { get }
    /// Decides a WebSocket upgrade on one of `webSocketPaths`.
    func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision
    /// Ends the module's sessions before the server stops.
    func shutdown() async
    /// This cluster node drains (docs/deploy.md, "Drain and failover"): its channels were handed
    /// to the cluster; the module moves what it runs for them (its clients come back through
    /// another node) and refuses new WebSockets. Called before `shutdown`.
    func handOff() async
    /// Whether `uid` (holding a valid channel token) may join the SRTC channel `key`; `nil` when the
    /// module has no say about that channel. The meeting backend admits only current members to a
    /// meeting's channel, so a kicked member's still-valid token cannot bring them back.
    func admits(_ key: ChannelKey, uid: String) async -> Bool?
    /// Whether `uid` may publish `track` in the channel `key`, asked before each track of a
    /// `publish` is accepted; `nil` when the module has no say about that channel. A refusal is
    /// answered `policy_forbidden` (40311) with the verdict's message. Holds the module sets with
    /// `ChannelControl.setMuted` apply on top (a track allowed here may still start muted).
    func mayPublish(_ key: ChannelKey, uid: String, track: PublishTrack) async -> PublishVerdict?

    /// Starts a server-side composite (MCU) of channel `key` published under `uid`, asked by another
    /// module (the meeting backend, for a `.mix` meeting); `nil` when this module makes no composites.
    func startComposite(_ key: ChannelKey, uid: String) async -> Bool?
    /// Stops that composite; `nil` when this module makes no composites.
    func stopComposite(_ key: ChannelKey, uid: String) async -> Bool?
    /// Starts live captions in channel `key` (docs/captions.md), asked by another module (a
    /// meeting host's `admin_start_captions`); `nil` when this module runs no captions.
    func startCaptions(_ key: ChannelKey, language: String?) async -> Result<Void, ModuleRefusal>?
    /// Stops them; `nil` when this module runs no captions.
    func stopCaptions(_ key: ChannelKey) async -> Result<Void, ModuleRefusal>?
    /// Creates an RTMP ingress publishing into channel `key` as `uid` (docs/ingress.md), asked by
    /// another module (a meeting host's `admin_create_ingress`); `nil` when this module runs no ingresses.
    func createIngress(_ key: ChannelKey, uid: String) async -> Result<ModuleIngress, ModuleRefusal>?
    /// Deletes ingress `ingressId` of channel `key`; `nil` when this module runs no ingresses.
    func deleteIngress(_ key: ChannelKey, ingressId: String) async -> Result<Void, ModuleRefusal>?
}

/// An ingress another module asked for: where its encoder pushes.
public struct ModuleIngress: Sendable, Equatable {
    public let ingressId: String
    /// `rtmp://host:port/live/<stream_key>`.
    public let url: String
    public let streamKey: String

    public init(ingressId: String, url: String, streamKey: String) {
        self.ingressId = ingressId
        self.url = url
        self.streamKey = streamKey
    }
}

/// Why a module refused another module's request: the server API's error code and message.
public struct ModuleRefusal: Error, Sendable, Equatable {
    public let code: APIErrorCode
    public let message: String

    public init(_ code: APIErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ServerModule {
    public func handOff() async {}
    public func admits(_ key: ChannelKey, uid: String) async -> Bool? { nil }
    public func mayPublish(_ key: ChannelKey, uid: String, track: PublishTrack) async -> PublishVerdict? { nil }
    public func startComposite(_ key: ChannelKey, uid: String) async -> Bool? { nil }
    public func stopComposite(_ key: ChannelKey, uid: String) async -> Bool? { nil }
    public func startCaptions(_ key: ChannelKey, language: String?) async -> Result<Void, ModuleRefusal>? { nil }
    public func stopCaptions(_ key: ChannelKey) async -> Result<Void, ModuleRefusal>? { nil }
    public func createIngress(_ key: ChannelKey, uid: String) async -> Result<ModuleIngress, ModuleRefusal>? { nil }
    public func deleteIngress(_ key: ChannelKey, ingressId: String) async -> Result<Void, ModuleRefusal>? { nil }
}

/// A module's answer to `mayPublish`.
public enum PublishVerdict: Sendable, Equatable {
    case allow
    /// Allowed, and held muted from the start (as `ChannelControl.setMuted` holds it): a meeting's
    /// mute all over an ingress, which has no microphone state of its own to close.
    case allowHeld
    /// Refused; the message tells the client why (`policy_forbidden`).
    case refuse(String)
}

/// What a module may use of the server it is added to.
public struct ServerModuleContext: Sendable {
    /// The server's configuration.
    public let config: ServerConfig
    /// The server's SQLite database (a module keeps its own tables and schema version in it).
    public let database: any Database
    /// The apps, for token verification and for signing tokens with an app's key.
    public let apps: AppStore
    /// Counters shared with `/metrics`.
    public let metrics: Metrics
    /// Server-side control of live SRTC channels.
    public let channels: ChannelControl
    /// Notifications one module posts and another delivers (meeting reminders → IM).
    public let notifications: UserNotifications
    /// Where channels run, on a cluster node (`--redis-url`); `nil` on a single node.
    public var cluster: ClusterPlacement? = nil
    /// Signed webhooks to the customer's backend (a no-op without `--webhook-url`).
    public let webhooks: ModuleWebhooks
    /// The server's own HTTP address, known once it listens (egress workers connect there).
    public let endpoint: ServerEndpoint
}

/// Webhooks a module sends: stored, signed and retried like the channel events, with the channel's
/// next sequence number (docs/server-api.md, "Webhooks").
public struct ModuleWebhooks: Sendable {
    let dispatcher: WebhookDispatcher?

    /// Queues event `name` of channel `key`, with `data` as the event's `data` object.
    public func send<Data: Encodable & Sendable>(_ key: ChannelKey, event name: String, data: Data) {
        dispatcher?.enqueue(key, name, data)
    }
}

/// Where this server is reached from the same machine, set when `ServerApp.start()` bound its port.
public final class ServerEndpoint: Sendable {
    private let url = Mutex<String?>(nil)

    init(certificateFile: String? = nil) {
        self.certificateFile = certificateFile
    }

    /// `http://host:port` (`https://` with TLS on) of the API and signaling, or nil before the server listens.
    public var httpURL: String? { url.withLock { $0 } }
    /// With TLS on, the certificate file the server presents (`--tls-cert`, re-read on `SIGHUP`):
    /// what a client on this host trusts when it connects to `httpURL`.
    public let certificateFile: String?

    func set(scheme: String, host: String, port: UInt16) {
        let reachable = host == "0.0.0.0" || host == "::" || host.isEmpty ? "127.0.0.1" : host
        let literal = reachable.contains(":") ? "[\(reachable)]" : reachable
        url.withLock { $0 = "\(scheme)://\(literal):\(port)" }
    }
}

/// Creates a module once the server's storage is open.
public typealias ServerModuleFactory = @Sendable (ServerModuleContext) throws -> any ServerModule
