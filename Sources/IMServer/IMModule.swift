import RTCNet
import SRTCProtocol
import SRTCServer

/// The IM service as a `ServerModule` (docs/im.md): the WebSocket `/im/v1/ws`, the signed routes
/// `/server/v1/im/grant` and `/server/v1/im/notify`, mailboxes in the server's database, and the
/// delivery of other modules' notifications (meeting reminders).
///
/// ```swift
/// let app = try ServerApp(config: config, modules: [IMModule.factory, MeetingModule.factory])
/// ```
public final class IMModule: ServerModule, UserNotificationDeliverer {
    /// The IM WebSocket path.
    public static let webSocketPath = "/im/v1/ws"

    /// Adds the IM service to a `ServerApp`.
    public static let factory: ServerModuleFactory = { context in try IMModule(context: context) }

    let service: IMService
    let apps: AppStore
    let settings: IMSettings
    private let timer: Task<Void, Never>

    public init(context: ServerModuleContext) throws {
        settings = context.config.im
        apps = context.apps
        let service = IMService(store: try SQLIMStore(database: context.database), settings: settings)
        self.service = service
        // Call timeouts and purging, once a second.
        timer = Task {
            while !Task.isCancelled {
                try? await TimerQueue.shared.sleep(for: .seconds(1))
                await service.tick()
            }
        }
        context.notifications.setDeliverer(self)
    }

    public func registerRoutes(in builder: inout APIRouter.Builder) {
        IMRoutes.register(in: &builder, service: service)
    }

    public var webSocketPaths: [String] { [Self.webSocketPath] }

    /// Every connection is accepted; it must `login` within 10 s.
    public func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        let configuration = WebSocketConfiguration(maxMessageSize: IMSession.maxMessageBytes(settings), pingInterval: .seconds(15))
        return .accept(configuration: configuration) { [service, apps, settings] socket in
            IMSession(socket: socket, service: service, apps: apps, settings: settings).start()
        }
    }

    public func shutdown() async {
        timer.cancel()
    }

    // MARK: - UserNotificationDeliverer

    public func deliver(_ notification: UserNotification, appId: String, uids: [String]) async throws -> Int {
        try await service.notify(appId: appId, uids: uids, notification)
    }
}
