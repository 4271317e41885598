import Synchronization

/// A notification for users of an app, posted by one module and delivered by another: the
/// meeting backend posts meeting reminders, the IM module (`IMServer`) delivers them to the users'
/// mailboxes. Without a deliverer (no IM module), posts are dropped.
public struct UserNotification: Sendable, Equatable {
    /// The IM message kind (`notification`, `meeting_reminder`).
    public var kind: String
    public var title: String?
    public var content: String
    /// App data, for example the meeting as JSON.
    public var data: String?
    /// A notification with a key already delivered (and not expired) is not delivered again,
    /// so a poster may repeat itself (after a restart, on each scan).
    public var dedupeKey: String?

    public init(kind: String, title: String? = nil, content: String, data: String? = nil, dedupeKey: String? = nil) {
        self.kind = kind
        self.title = title
        self.content = content
        self.data = data
        self.dedupeKey = dedupeKey
    }
}

/// Delivers notifications (implemented by the IM module).
public protocol UserNotificationDeliverer: Sendable {
    /// Delivers to each uid of `appId`; returns how many mailboxes got it (0 for a repeated key).
    func deliver(_ notification: UserNotification, appId: String, uids: [String]) async throws -> Int
}

/// The server's notification hub, shared by its modules through `ServerModuleContext`.
public final class UserNotifications: Sendable {
    private let deliverer = Mutex<(any UserNotificationDeliverer)?>(nil)

    public init() {}

    /// Sets the module that delivers (the IM module, when it is added).
    public func setDeliverer(_ value: any UserNotificationDeliverer) {
        deliverer.withLock { $0 = value }
    }

    /// Whether a deliverer is set (a poster may skip its work otherwise).
    public var canDeliver: Bool { deliverer.withLock { $0 != nil } }

    /// Posts `notification` to `uids` of `appId`; returns how many mailboxes got it.
    @discardableResult
    public func post(_ notification: UserNotification, appId: String, uids: [String]) async throws -> Int {
        guard let target = deliverer.withLock({ $0 }) else { return 0 }
        return try await target.deliver(notification, appId: appId, uids: uids)
    }
}
