import Foundation
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCServer

/// The meeting backend as a `ServerModule`: the member WebSocket `/stm/v1/ws` and the signed
/// routes `/server/v1/meeting/…`, storing meetings in the server's database.
///
/// ```swift
/// let app = try ServerApp(config: config, modules: [MeetingModule.factory])
/// ```
public final class MeetingModule: ServerModule {
    /// The member WebSocket path.
    public static let webSocketPath = "/stm/v1/ws"

    /// Adds the meeting backend to a `ServerApp`.
    public static let factory: ServerModuleFactory = { context in try MeetingModule(context: context) }

    /// The meeting store (tests and tools read it directly).
    public let store: MeetingStore
    let service: MeetingService
    /// Meeting reminders through the notification hub (delivered by the IM module).
    let reminders: MeetingReminders

    public init(context: ServerModuleContext) throws {
        store = try MeetingStore(database: context.database)
        service = MeetingService(store: store, apps: context.apps, channels: context.channels,
                                 maxMembers: context.config.limits.maxUsersPerChannel,
                                 graceSeconds: context.config.limits.reconnectGraceSeconds,
                                 tokenLeewaySeconds: context.config.limits.tokenLeewaySeconds, cluster: context.cluster,
                                 limits: context.config.limits)
        if context.cluster == nil {
            let closed = store.closeStaysLeftOpen()
            if closed > 0 { Log.info("meeting", "closed \(closed) meeting stays a crash left open (exit_reason disconnected)") }
        }
        reminders = MeetingReminders(store: store, notifications: context.notifications, settings: context.config.im)
        reminders.start()
    }

    public func registerRoutes(in builder: inout APIRouter.Builder) {
        MeetingRoutes.register(in: &builder, service: service)
    }

    public var webSocketPaths: [String] { [Self.webSocketPath] }

    /// Every connection is accepted (until this node drained, `handOff`); it must `login` with a
    /// member token within 10 s.
    public func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        if service.handedOff {
            // A client moving off this node must reach another one (docs/deploy.md, "Drain and failover").
            var refusal = APIRouter.error(.internalError, "this node is draining; connect to another node", now: MeetingService.now())
            refusal.status = 503
            return .reject(refusal)
        }
        let configuration = WebSocketConfiguration(maxMessageSize: MeetingCodec.maxMessageBytes, pingInterval: .seconds(15))
        return .accept(configuration: configuration) { [service] socket in
            MeetingSocketHandler(socket: socket, service: service).start()
        }
    }

    public func handOff() async {
        await service.handOff()
    }

    public func shutdown() async {
        reminders.stop()
        await service.shutdown()
    }

    /// A meeting's SRTC channels (`mt_<meetingId>`, `mt_<meetingId>.<subMeetingId>`) admit only
    /// the meeting's current members, each to the channel of the (sub-)meeting it is in.
    public func admits(_ key: ChannelKey, uid: String) async -> Bool? {
        guard let (meetingId, _) = MeetingRoom.parseChannel(key.name) else { return nil }
        guard let room = await service.room(forChannelOf: meetingId, appId: key.appId, uid: uid) else { return false }
        return await room.admits(uid, to: key)
    }

    /// The meeting decides what its channels carry: a member publishes `mic` while its microphone
    /// is on in the meeting, `camera_big` while its camera is, `screen` while it shares its
    /// screen or captures a view; nothing else (docs/meeting-protocol.md, "Media rules").
    public func mayPublish(_ key: ChannelKey, uid: String, track: PublishTrack) async -> PublishVerdict? {
        guard let (meetingId, _) = MeetingRoom.parseChannel(key.name) else { return nil }
        guard let room = await service.room(forChannelOf: meetingId, appId: key.appId, uid: uid) else { return .refuse("the meeting is not live") }
        return await room.mayPublish(uid: uid, on: key, track: track)
    }
}
