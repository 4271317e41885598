import SMeetingProtocol

/// What a meeting's live room needs to come back on the node that takes its channel over, when
/// the node that ran it dies or drains (docs/deploy.md, "Drain and failover"): the room's live
/// policies and lock, its waiting-room switch and who shares, its co-hosts and presenters, the
/// members in it with their states, and the members in its waiting room. The
/// node that runs the room keeps it in Redis after every change (`MeetingRoom+Record`); a room
/// made on another node while it is there starts from it. The meeting itself (title, mode,
/// host, members invited) is in the database and is read afresh.
struct MeetingRoomRecord: Codable, Sendable {
    var room: RoomInfo
    var coHosts: [String]
    var presenters: [String]
    /// The members in the room at its last change; each gets its states back when it enters again.
    var members: [MeetingUserInfo]
    /// The waiting room, longest first; each waits again (not admitted) when it enters again.
    /// Absent from the records of nodes that did not keep it (they lost their waiting rooms).
    var waiting: [WaitingUserInfo]?

    static func key(appId: String, meetingId: String) -> String { "meeting:\(appId)/\(meetingId)" }
}
