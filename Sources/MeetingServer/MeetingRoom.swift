import Foundation
import RTCCrypto
import SMeetingProtocol
import SRTCServer

/// One live meeting: its members, their states and the room's policies. An actor, so entries,
/// exits, requests and the fan-out of their events are serialized per meeting. Created by
/// `MeetingRoomManager` on the first entry and forgotten when the last member exits (policies
/// such as mute all then start over).
actor MeetingRoom {
    struct Member {
        var info: MeetingUserInfo
        let connection: MeetingConnection
        let attendanceId: Int64
        /// Host requests this member may confirm with `by_admin` (kind → admin uid).
        var pending: [AdminRequestKind: String] = [:]
    }

    let appId: String
    let meetingId: String
    let channelKey: ChannelKey
    var meeting: MeetingInfo
    var room: RoomInfo
    var members: [String: Member] = [:]
    var coHosts: Set<String> = []
    var closed = false
    let store: MeetingStore
    let channels: ChannelControl
    let maxMembers: Int
    private let onEmpty: @Sendable (MeetingRoom) -> Void

    init(appId: String, meeting: MeetingInfo, store: MeetingStore, channels: ChannelControl, maxMembers: Int,
         onEmpty: @escaping @Sendable (MeetingRoom) -> Void) {
        self.appId = appId
        self.meetingId = meeting.meetingId
        self.channelKey = ChannelKey(appId: appId, name: Self.channelName(meeting.meetingId))
        self.meeting = meeting
        self.room = RoomInfo(meetingId: meeting.meetingId, roomNo: meeting.roomNo, title: meeting.title, hostUid: meeting.hostUid,
                             type: meeting.type, mode: meeting.mode, attendType: meeting.attendType, status: meeting.status,
                             startedAt: Self.nowMilliseconds())
        self.store = store
        self.channels = channels
        self.maxMembers = maxMembers
        self.onEmpty = onEmpty
    }

    /// The SRTC channel of a meeting.
    static let channelPrefix = "mt_"
    static func channelName(_ meetingId: String) -> String { channelPrefix + meetingId }

    /// `true` while `uid` is in the meeting (entered, not exited or removed).
    func hasMember(_ uid: String) -> Bool { members[uid] != nil }

    static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: - Snapshots

    var users: [MeetingUserInfo] { members.values.map(\.info).sorted { ($0.enteredAt, $0.uid) < ($1.enteredAt, $1.uid) } }

    var roomSnapshot: RoomInfo {
        var r = room
        r.memberCount = members.count
        return r
    }

    /// Takes the stored meeting's changes (title, attend type, password, conferee) after an update.
    func meetingUpdated(_ info: MeetingInfo) {
        meeting = info
        guard room.title != info.title || room.attendType != info.attendType || room.mode != info.mode else { return }
        room.title = info.title
        room.attendType = info.attendType
        room.mode = info.mode
        broadcastRoom(["title", "attend_type", "mode"], by: info.hostUid)
    }

    // MARK: - Enter and exit

    /// Admits `uid` after the access checks; returns the room, me and everyone.
    func enter(uid: String, nickname: String, password: String?, connection: MeetingConnection) throws(MeetingErrorBody)
        -> (room: RoomInfo, me: MeetingUserInfo, users: [MeetingUserInfo]) {
        guard !closed else { throw MeetingErrorBody(.meetingClosed, "the meeting has ended") }
        let role: Role = uid == room.hostUid ? .host : coHosts.contains(uid) ? .coHost : .member
        if uid != meeting.hostUid, role == .member {
            if room.locked { throw MeetingErrorBody(.roomLocked, "the room is locked") }
            switch meeting.attendType {
            case .open: break
            case .password:
                guard let password, ConstantTime.equals(password, meeting.password ?? "") else {
                    throw MeetingErrorBody(.wrongPassword, password == nil ? "this meeting needs a password" : "wrong password")
                }
            case .invitation:
                guard meeting.conferee.contains(uid) else { throw MeetingErrorBody(.notInvited, "this meeting is by invitation") }
            }
        }
        if let old = members[uid] {
            old.connection.send(.disconnected, DisconnectedEvent(reason: "duplicate_login", message: "entered from another session"))
            remove(uid, reason: .duplicateLogin, notifyRemoved: true, closeIfEmpty: false)
        }
        guard members.count < maxMembers else { throw MeetingErrorBody(.limitReached, "the meeting has \(maxMembers) members") }
        let attendance = try store.recordEnter(appId: appId, meetingId: meetingId, uid: uid, nickname: nickname, role: role)
        if room.status == .scheduled {
            try store.markStarted(meetingId)
            room.status = .ongoing
        }
        let info = MeetingUserInfo(uid: uid, nickname: nickname, role: role, enteredAt: Self.nowMilliseconds())
        members[uid] = Member(info: info, connection: connection, attendanceId: attendance)
        broadcast(.userEntered, UserEnteredEvent(user: info), except: uid)
        return (roomSnapshot, info, users)
    }

    /// `uid` exits on its own (or its connection dropped); nothing when `connection` is no longer its.
    func exit(uid: String, connection: MeetingConnection, reason: ExitReason) async {
        guard let m = members[uid], m.connection === connection else { return }
        remove(uid, reason: reason, notifyRemoved: false)
        if reason == .disconnected { await channels.kick(channelKey, uid: uid, message: "meeting connection lost") }
    }

    /// Removes a member: history, events, sharing released; the room reports itself empty.
    func remove(_ uid: String, reason: ExitReason, notifyRemoved: Bool, closeIfEmpty: Bool = true) {
        guard let m = members.removeValue(forKey: uid) else { return }
        store.recordExit(m.attendanceId, reason: reason)
        if notifyRemoved { m.connection.removed(from: self) }
        if room.sharingUid == uid {
            room.sharingUid = nil
            room.shareType = 0
            broadcastRoom(["sharing"], by: nil)
        }
        broadcast(.userExited, UserExitedEvent(user: m.info, reason: reason))
        if members.isEmpty, !closed, closeIfEmpty {
            closed = true
            onEmpty(self)
        }
    }

    /// Ends the meeting for everyone: `room_ended`, every member removed, the channel closed.
    func end(by uid: String?) async {
        guard !closed || !members.isEmpty else { return }
        closed = true
        room.status = .ended
        broadcast(.roomEnded, ByEvent(by: uid))
        for (id, m) in members {
            store.recordExit(m.attendanceId, reason: .ended)
            m.connection.removed(from: self)
            members[id] = nil
        }
        try? store.markEnded(meetingId)
        await channels.close(channelKey)
        onEmpty(self)
    }

    // MARK: - Fan-out

    func broadcast<T: Encodable>(_ type: MeetingEventType, _ data: T, except uid: String? = nil) {
        let text = MeetingCodec.event(type, data)
        for m in members.values where m.info.uid != uid { m.connection.send(text: text) }
    }

    func broadcastRoom(_ fields: [String], by uid: String?) {
        broadcast(.roomChanged, RoomChangedEvent(room: roomSnapshot, fields: fields, by: uid))
    }

    /// Applies `change` to a member, recomputes its track descriptions and tells everyone.
    @discardableResult
    func update(_ uid: String, _ fields: [String], by admin: String? = nil, _ change: (inout MeetingUserInfo) -> Void) -> MeetingUserInfo? {
        guard var m = members[uid] else { return nil }
        let before = m.info
        change(&m.info)
        m.info.trackDescs = (m.info.micState == .on ? [.mic] : []) + (m.info.cameraState == .on ? [.cameraBig, .cameraSmall] : [])
            + (m.info.shareState == ShareType.screen.rawValue ? [.screen] : [])
        members[uid] = m
        if m.info != before { broadcast(.userChanged, UserChangedEvent(user: m.info, fields: fields, by: admin)) }
        return m.info
    }

    /// The member `uid`, or `not_in_meeting`.
    func member(_ uid: String) throws(MeetingErrorBody) -> Member {
        guard let m = members[uid] else { throw MeetingErrorBody(.notInMeeting, "not in this meeting") }
        return m
    }
}
