import RTCNet
import SRTCProtocol

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
    /// Whether `uid` (holding a valid channel token) may join the SRTC channel `key`; `nil` when the
    /// module has no say about that channel. The meeting backend admits only current members to a
    /// meeting's channel, so a kicked member's still-valid token cannot bring them back.
    func admits(_ key: ChannelKey, uid: String) async -> Bool?
    /// Whether `uid` may publish `track` in the channel `key`, asked before each track of a
    /// `publish` is accepted; `nil` when the module has no say about that channel. A refusal is
    /// answered `policy_forbidden` (40311) with the verdict's message. Holds the module sets with
    /// `ChannelControl.setMuted` apply on top (a track allowed here may still start muted).
    func mayPublish(_ key: ChannelKey, uid: String, track: PublishTrack) async -> PublishVerdict?
}

extension ServerModule {
    public func admits(_ key: ChannelKey, uid: String) async -> Bool? { nil }
    public func mayPublish(_ key: ChannelKey, uid: String, track: PublishTrack) async -> PublishVerdict? { nil }
}

/// A module's answer to `mayPublish`.
public enum PublishVerdict: Sendable, Equatable {
    case allow
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
}

/// Creates a module once the server's storage is open.
public typealias ServerModuleFactory = @Sendable (ServerModuleContext) throws -> any ServerModule
