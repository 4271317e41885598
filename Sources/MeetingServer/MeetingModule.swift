import Foundation
import RTCNet
import SMeetingProtocol
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
    private let reminderTask: Task<Void, Never>?

    public init(context: ServerModuleContext) throws {
        store = try MeetingStore(database: context.database)
        service = MeetingService(store: store, apps: context.apps, channels: context.channels,
                                 maxMembers: context.config.limits.maxUsersPerChannel)
        reminders = MeetingReminders(store: store, notifications: context.notifications, settings: context.config.im)
        reminderTask = reminders.start()
    }

    public func registerRoutes(in builder: inout APIRouter.Builder) {
        MeetingRoutes.register(in: &builder, service: service)
    }

    public var webSocketPaths: [String] { [Self.webSocketPath] }

    /// Every connection is accepted; it must `login` with a member token within 10 s.
    public func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        let configuration = WebSocketConfiguration(maxMessageSize: MeetingCodec.maxMessageBytes, pingInterval: .seconds(15))
        return .accept(configuration: configuration) { [service] socket in
            MeetingSession(socket: socket, service: service).start()
        }
    }

    public func shutdown() async {
        reminderTask?.cancel()
        await service.shutdown()
    }

    /// A meeting's SRTC channel (`mt_<meetingId>`) admits only the meeting's current members.
    public func admits(_ key: ChannelKey, uid: String) async -> Bool? {
        guard key.name.hasPrefix(MeetingRoom.channelPrefix) else { return nil }
        let meetingId = String(key.name.dropFirst(MeetingRoom.channelPrefix.count))
        guard let room = service.rooms.existing(appId: key.appId, meetingId: meetingId) else { return false }
        return await room.hasMember(uid)
    }
}
