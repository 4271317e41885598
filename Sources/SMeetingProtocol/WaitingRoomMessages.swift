/// A member in the waiting room, as hosts and co-hosts see it.
public struct WaitingUserInfo: Codable, Sendable, Equatable {
    public var uid: String
    public var nickname: String
    /// When the member started waiting, Unix milliseconds.
    public var since: Int64

    public init(uid: String, nickname: String, since: Int64) {
        self.uid = uid
        self.nickname = nickname
        self.since = since
    }
}

/// `waiting_entered` (hosts and co-hosts): someone waits to be admitted.
public struct WaitingEnteredEvent: Codable, Sendable {
    public var user: WaitingUserInfo
    public init(user: WaitingUserInfo) { self.user = user }
}

/// `waiting_left` (hosts and co-hosts): someone left the waiting room; `by` is the admin who
/// admitted or removed them (`nil`: themselves, or the backend).
public struct WaitingLeftEvent: Codable, Sendable {
    public var user: WaitingUserInfo
    public var reason: WaitingLeaveReason
    public var by: String?
    public init(user: WaitingUserInfo, reason: WaitingLeaveReason, by: String?) { self.user = user; self.reason = reason; self.by = by }
}

/// `waiting_list` (to a member who just became host or co-host), `admin_admit_all`'s answer
/// (`users`: who was admitted) and the server API's waiting list.
public struct WaitingListEvent: Codable, Sendable, Equatable {
    public var users: [WaitingUserInfo]
    public init(users: [WaitingUserInfo]) { self.users = users }
}
