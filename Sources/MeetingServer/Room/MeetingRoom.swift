import Foundation
import RTCCrypto
import SMeetingProtocol
import SRTCServer

/// One live meeting: its members, their states, the room's policies, the waiting room, the
/// sub-meetings and the running sign-ins. An actor, so entries, exits, requests and the fan-out
/// of their events are serialized per meeting. Created by `MeetingRoomManager` on the first
/// entry and forgotten when the last member exits and nobody waits (policies such as mute all
/// then start over).
///
/// The concerns live in extensions: `+Media` (a member's own devices), `+Admin` (host controls),
/// `+Authority` (what the SRTC channels may carry), `+Waiting`, `+SubMeetings`, `+SignIn`,
/// `+Record` (moves between nodes).
///
/// Time comes from the injected `RoomClock` (timestamps, deadlines and every timer), so the
/// rules are tested without sockets in virtual time (`MeetingRoomTests`); timers reach the room
/// through its `MeetingInbox`.
actor MeetingRoom {
    struct Member {
        var info: MeetingUserInfo
        let connection: MeetingConnection
        let attendanceId: Int64
        /// Host requests this member may confirm with `by_admin` (kind → admin uid).
        var pending: [AdminRequestKind: String] = [:]
    }

    struct Waiter {
        var info: WaitingUserInfo
        let connection: MeetingConnection
    }

    let appId: String
    let meetingId: String
    /// The main meeting's SRTC channel.
    let channelKey: ChannelKey
    var meeting: MeetingInfo
    var room: RoomInfo
    var members: [String: Member] = [:]
    /// The waiting room, by uid.
    var waiting: [String: Waiter] = [:]
    var coHosts: Set<String> = []
    /// A training meeting's presenters (kept while the room lives, like co-hosts).
    var presenters: Set<String> = []
    var subMeetings: [SubMeeting] = []
    var nextSubMeetingNumber = 1
    /// The sub-meetings' countdown while it runs (`+SubMeetings`).
    var subMeetingsClosing: RoomTimer?
    var signIn: ActiveSignIn?
    var rollCalls: [String: ActiveSignIn] = [:]
    var closed = false
    let store: MeetingStore
    let signer: ChannelGrantSigner
    /// The meeting's orders to its SRTC channels, in order.
    let commands: ChannelCommandQueue
    /// The server's channel operations the room awaits itself (captions: their refusal is the answer).
    let channels: ChannelControl
    let maxMembers: Int
    /// On a cluster: where the room's record is kept for the node that may take it over (`+Record`).
    let records: ClusterPlacement?
    var recordPending = false
    /// Members of the room on its previous node, by uid, until each enters again (`+Record`).
    var returning: [String: MeetingUserInfo] = [:]
    /// Members of the room's waiting room on its previous node, by uid, until each enters (and
    /// waits) again (`+Record`, `+Waiting`).
    var returningWaiters: [String: WaitingUserInfo] = [:]
    /// The end of the wait for `returning` and `returningWaiters` (`+Record`).
    var returnTimer: RoomTimer?
    let clock: RoomClock
    /// Where the room's timers post (see the type's comment).
    nonisolated let inbox = MeetingInbox()
    private let onEmpty: @Sendable (MeetingRoom) -> Void

    /// - Parameters:
    ///   - record: the room as another node ran it; its members may come back within
    ///     `returnSeconds` (their sessions' grace period, `+Record`).
    init(appId: String, meeting: MeetingInfo, store: MeetingStore, signer: ChannelGrantSigner, channels: ChannelControl, maxMembers: Int,
         records: ClusterPlacement? = nil, record: MeetingRoomRecord? = nil, returnSeconds: Int = 20, clock: RoomClock = SystemRoomClock(),
         onEmpty: @escaping @Sendable (MeetingRoom) -> Void) {
        self.clock = clock
        self.appId = appId
        self.meetingId = meeting.meetingId
        self.channelKey = ChannelKey(appId: appId, name: Self.channelName(meeting.meetingId))
        self.meeting = meeting
        self.room = RoomInfo(meetingId: meeting.meetingId, roomNo: meeting.roomNo, title: meeting.title, hostUid: meeting.hostUid,
                             type: meeting.type, mode: meeting.mode, attendType: meeting.attendType, status: meeting.status,
                             startedAt: clock.now(), waitingRoom: meeting.waitingRoom, e2ee: meeting.e2ee == true)
        self.store = store
        self.signer = signer
        self.commands = ChannelCommandQueue(channels: channels)
        self.channels = channels
        self.maxMembers = maxMembers
        self.records = records
        self.onEmpty = onEmpty
        if let record {
            // The room continues one another node ran (`+Record`).
            Self.restore(record, into: &room)
            coHosts = Set(record.coHosts)
            presenters = Set(record.presenters)
            returning = Dictionary(record.members.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
            returningWaiters = Dictionary((record.waiting ?? []).map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
            returnTimer = Self.schedule(clock.now() + Int64(returnSeconds) * 1000, on: clock, inbox: inbox) { $0.expireReturning() }
        }
        let jobs = inbox.jobs
        Task { [weak self] in
            for await job in jobs {
                guard let self else { return }
                await job(self)
            }
        }
    }

    // MARK: - Time

    /// Runs `job` on this room when its clock reaches `deadline` (Unix ms), unless the timer is
    /// cancelled first or the room has closed.
    func schedule(at deadline: Int64, _ job: @escaping MeetingInbox.Job) -> RoomTimer {
        Self.schedule(deadline, on: clock, inbox: inbox, job)
    }

    private static func schedule(_ deadline: Int64, on clock: RoomClock, inbox: MeetingInbox, _ job: @escaping MeetingInbox.Job) -> RoomTimer {
        clock.schedule(at: deadline) { inbox.post(job) }
    }

    /// Returns once every job posted so far (the timers that fell due) has run.
    nonisolated func settled() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if !inbox.post({ _ in done.resume() }) { done.resume() }
        }
    }

    /// The SRTC channel of a meeting is `mt_<meeting id>`; a sub-meeting's `mt_<meeting id>.<sub id>`.
    static let channelPrefix = "mt_"
    static func channelName(_ meetingId: String) -> String { channelPrefix + meetingId }

    /// The meeting id and sub-meeting id a channel name belongs to, if it is a meeting's.
    static func parseChannel(_ name: String) -> (meetingId: String, subMeetingId: String?)? {
        guard name.hasPrefix(channelPrefix) else { return nil }
        let rest = name.dropFirst(channelPrefix.count)
        guard let dot = rest.firstIndex(of: ".") else { return (String(rest), nil) }
        return (String(rest[..<dot]), String(rest[rest.index(after: dot)...]))
    }

    /// The channel of the main meeting (`nil`) or of a sub-meeting.
    func channelKey(for subMeetingId: String?) -> ChannelKey {
        guard let subMeetingId else { return channelKey }
        return ChannelKey(appId: appId, name: Self.channelName(meetingId) + "." + subMeetingId)
    }

    /// `true` while `uid` is in the meeting (entered, not exited or removed), not when waiting.
    func hasMember(_ uid: String) -> Bool { members[uid] != nil }

    /// Whether `uid` may join the SRTC channel `key`: a member, in that (sub-)meeting; or a member
    /// of the room on its previous node not back yet, whose SRTC session moves here before its
    /// meeting session (`+Record`).
    func admits(_ uid: String, to key: ChannelKey) -> Bool {
        if let ingress = ingress(uid: uid) { return key == channelKey(for: ingress.subMeetingId) }
        guard let info = members[uid]?.info ?? returning[uid] else { return false }
        return channelKey(for: info.subMeetingId) == key
    }

    // MARK: - Snapshots

    var users: [MeetingUserInfo] { members.values.map(\.info).sorted { ($0.enteredAt, $0.uid) < ($1.enteredAt, $1.uid) } }

    var roomSnapshot: RoomInfo {
        var r = room
        r.memberCount = members.count
        return r
    }

    /// Takes the stored meeting's changes after an update; a switch to training or voice mode
    /// closes what the new mode forbids.
    func meetingUpdated(_ info: MeetingInfo) {
        meeting = info
        let waitingRoomOff = room.waitingRoom && !info.waitingRoom
        guard room.title != info.title || room.attendType != info.attendType || room.mode != info.mode
            || room.waitingRoom != info.waitingRoom else { return }
        let modeChanged = room.mode != info.mode
        room.title = info.title
        room.attendType = info.attendType
        room.mode = info.mode
        room.waitingRoom = info.waitingRoom
        if modeChanged { enforceMode(by: info.hostUid) }
        broadcastRoom(["title", "attend_type", "mode", "waiting_room"], by: info.hostUid)
        if waitingRoomOff { admitEveryone(by: nil) }
    }

    // MARK: - Enter and exit

    /// Admits `uid` after the access checks (a locked room refuses before the waiting room), or
    /// puts it in the waiting room. The answer carries the SRTC channel grant once admitted.
    func enter(uid: String, nickname: String, password: String?, connection: MeetingConnection) throws(MeetingErrorBody) -> EnterRoomResp {
        guard !closed else { throw MeetingErrorBody(.meetingClosed, "the meeting has ended") }
        let role = roleOnEntry(uid)
        // A member the room had on its previous node comes back (`+Record`): lock, password,
        // invitation and waiting room let it through, as they did when it first entered. One
        // that waited there passed the same checks: it waits again, in its place.
        let waitedBefore = returningWaiters[uid] != nil
        if uid != meeting.hostUid, role == .member, returning[uid] == nil, !waitedBefore {
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
            if room.waitingRoom, members[uid] == nil { return wait(uid: uid, nickname: nickname, connection: connection) }
        }
        if waitedBefore, role == .member, room.waitingRoom, members[uid] == nil { return wait(uid: uid, nickname: nickname, connection: connection) }
        return try admitMember(uid: uid, nickname: nickname, connection: connection)
    }

    /// The role `uid` has when it enters now.
    func roleOnEntry(_ uid: String) -> Role {
        uid == room.hostUid ? .host : coHosts.contains(uid) ? .coHost : .member
    }

    /// Makes `uid` a member (entry, or admission from the waiting room); an older session of the
    /// same uid is replaced.
    func admitMember(uid: String, nickname: String, connection: MeetingConnection) throws(MeetingErrorBody) -> EnterRoomResp {
        let rtc = try signer.grant(appId: appId, uid: uid, channel: channelKey.name)
        if let old = members[uid] {
            old.connection.send(.disconnected, DisconnectedEvent(reason: "duplicate_login", message: "entered from another session"))
            remove(uid, reason: .duplicateLogin, notifyRemoved: true, closeIfEmpty: false)
        }
        guard members.count < maxMembers else { throw MeetingErrorBody(.limitReached, "the meeting has \(maxMembers) members") }
        let role = roleOnEntry(uid)
        let attendance = try store.recordEnter(appId: appId, meetingId: meetingId, uid: uid, nickname: nickname, role: role)
        if room.status == .scheduled {
            try store.markStarted(meetingId)
            room.status = .ongoing
        }
        var info = MeetingUserInfo(uid: uid, nickname: nickname, role: role, enteredAt: clock.now(),
                                   presenter: presenters.contains(uid))
        returningStates(of: uid, into: &info)
        // One that waited on the room's previous node and may now enter directly (the waiting
        // room was turned off meanwhile) leaves the hosts' waiting list.
        if let waited = returningWaiters.removeValue(forKey: uid) {
            broadcastAdmins(.waitingLeft, WaitingLeftEvent(user: waited, reason: .admitted, by: nil))
        }
        members[uid] = Member(info: info, connection: connection, attendanceId: attendance)
        joinRunningSignIn(uid: uid, nickname: nickname)
        broadcast(.userEntered, UserEnteredEvent(user: info), except: uid)
        return EnterRoomResp(room: roomSnapshot, me: info, users: users, rtc: rtc,
                             waitingUsers: role.isAdmin ? waitingList : [], subMeetings: subMeetingInfos)
    }

    /// `uid` exits on its own (or its connection was lost for good); nothing when `connection` is
    /// no longer its. Works for the waiting room too.
    func exit(uid: String, connection: MeetingConnection, reason: ExitReason) {
        if let w = waiting[uid], w.connection === connection {
            leaveWaiting(uid, reason: .left, by: nil)
            return
        }
        guard let m = members[uid], m.connection === connection else { return }
        let key = channelKey(for: m.info.subMeetingId)
        remove(uid, reason: reason, notifyRemoved: false)
        if reason == .disconnected { commands.enqueue(.kick(key, uid: uid, message: "meeting connection lost")) }
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
        if closeIfEmpty { closeIfDeserted() }
    }

    /// Closes the room once nobody is in it or waiting.
    func closeIfDeserted() {
        guard members.isEmpty, waiting.isEmpty, !closed else { return }
        closed = true
        dropRecord()
        endTimers()
        endIngresses()
        onEmpty(self)
    }

    /// Ends the meeting for everyone: `room_ended`, every member and waiter removed, the
    /// channels closed (returns once they are).
    func end(by uid: String?) async {
        guard !closed || !members.isEmpty else { return }
        closed = true
        dropRecord()
        room.status = .ended
        broadcast(.roomEnded, ByEvent(by: uid))
        for (id, m) in members {
            store.recordExit(m.attendanceId, reason: .ended)
            m.connection.removed(from: self)
            members[id] = nil
        }
        for (id, w) in waiting {
            w.connection.send(.roomEnded, ByEvent(by: uid))
            w.connection.removed(from: self)
            waiting[id] = nil
        }
        endTimers()
        endIngresses()
        try? store.markEnded(meetingId)
        for sub in subMeetings { commands.enqueue(.close(channelKey(for: sub.id))) }
        commands.enqueue(.close(channelKey))
        await commands.flush()
        onEmpty(self)
    }

    /// This node drains: the room's record is written as it is now and the room closes without
    /// a word to anyone (its members enter again on the room's next node, which starts from the
    /// record). Their stays here end in the attendance.
    func handOff() {
        guard !closed else { return }
        recordPending = false
        writeRecord()
        closed = true
        endTimers()
        for (uid, m) in members {
            store.recordExit(m.attendanceId, reason: .disconnected)
            m.connection.removed(from: self)
            members[uid] = nil
        }
        for (uid, w) in waiting {
            w.connection.removed(from: self)
            waiting[uid] = nil
        }
        onEmpty(self)
    }

    /// Stops the sub-meeting countdown and the wait for returning members, ends running sign-ins
    /// and roll calls (stored as ended), and refuses later timer jobs (the room closed).
    func endTimers() {
        subMeetingsClosing?.cancel()
        subMeetingsClosing = nil
        returnTimer?.cancel()
        returnTimer = nil
        endSignIns()
        inbox.finish()
    }

    // MARK: - Fan-out

    func broadcast<T: Encodable>(_ type: MeetingEventType, _ data: T, except uid: String? = nil) {
        let text = MeetingCodec.event(type, data)
        for m in members.values where m.info.uid != uid { m.connection.send(text: text) }
        recordChanged()
    }

    /// To hosts and co-hosts only.
    func broadcastAdmins<T: Encodable>(_ type: MeetingEventType, _ data: T) {
        let text = MeetingCodec.event(type, data)
        for m in members.values where m.info.role.isAdmin { m.connection.send(text: text) }
        recordChanged()
    }

    func broadcastRoom(_ fields: [String], by uid: String?) {
        broadcast(.roomChanged, RoomChangedEvent(room: roomSnapshot, fields: fields, by: uid))
    }

    /// Applies `change` to a member, recomputes its track descriptions, makes the SRTC channel
    /// follow (`+Authority`) and tells everyone.
    @discardableResult
    func update(_ uid: String, _ fields: [String], by admin: String? = nil, _ change: (inout MeetingUserInfo) -> Void) -> MeetingUserInfo? {
        guard var m = members[uid] else { return nil }
        let before = m.info
        change(&m.info)
        m.info.trackDescs = Self.trackDescs(of: m.info)
        members[uid] = m
        followMedia(uid: uid, before: before, after: m.info)
        if m.info != before { broadcast(.userChanged, UserChangedEvent(user: m.info, fields: fields, by: admin)) }
        return m.info
    }

    /// What a member publishes, from its states: mic on → `mic`; camera on → `camera_big`,
    /// `camera_small`; screen sharing or view capture → `screen`.
    static func trackDescs(of info: MeetingUserInfo) -> [TrackDesc] {
        (info.micState == .on ? [.mic] : []) + (info.cameraState == .on ? [.cameraBig, .cameraSmall] : [])
            + (holdsScreen(info) ? [.screen] : [])
    }

    /// Whether the member may publish `screen`: it shares its screen or captures a view.
    static func holdsScreen(_ info: MeetingUserInfo) -> Bool {
        info.shareState == ShareType.screen.rawValue || info.viewCapture
    }

    /// The member `uid`, or `not_in_meeting`.
    func member(_ uid: String) throws(MeetingErrorBody) -> Member {
        guard let m = members[uid] else { throw MeetingErrorBody(.notInMeeting, "not in this meeting") }
        return m
    }
}
