import Foundation
import RTCCrypto
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import Synchronization

/// What the meeting WebSocket and the signed meeting routes share: the store, the live rooms,
/// member-token checks and SRTC channel grants.
final class MeetingService: Sendable {
    let store: MeetingStore
    let rooms: MeetingRoomManager
    let apps: AppStore
    let sessions = MeetingSessions()
    /// How long a session whose connection dropped is kept for a resume (SRTC's
    /// `reconnect_grace_seconds`).
    let graceSeconds: Int
    /// Logins per IP address (`--address-joins-per-second`), resumes included: checked before
    /// the token is read, so a flood of logins is cheap to refuse. A single node only.
    let addressLogins: KeyedRateLimiter<SocketAddress>
    /// Entries (`enter_room`) per member, in any meeting (`--user-joins-per-second`, with the
    /// channels' burst): a member looping in and out would otherwise write an attendance record
    /// and send every other member two events each time. Per member, not per meeting, so it can
    /// never keep anyone else out.
    let memberEntries: KeyedRateLimiter<MemberKey>
    /// Sessions' grace periods: many long waits, mostly cancelled by a resume.
    let timers: TimerQueue
    /// Clock skew tolerated on member tokens (`--token-leeway-seconds`).
    let tokenLeewaySeconds: Int64
    /// Where meetings' channels run, on a cluster node: a meeting's live room runs there too.
    let cluster: ClusterPlacement?
    private let handingOff = Atomic<Bool>(false)

    struct MemberKey: Hashable, Sendable {
        let appId: String
        let uid: String
    }

    init(store: MeetingStore, apps: AppStore, channels: ChannelControl, maxMembers: Int, graceSeconds: Int,
         tokenLeewaySeconds: Int64 = 5, cluster: ClusterPlacement? = nil, limits: ChannelLimits = ChannelLimits(),
         timers: TimerQueue = TimerQueue(label: "srtc-meeting-timers")) {
        self.timers = timers
        addressLogins = KeyedRateLimiter(ratePerSecond: limits.addressJoinsPerSecond)
        memberEntries = KeyedRateLimiter(ratePerSecond: limits.userJoinsPerSecond, burstSeconds: ChannelLimits.userJoinBurstSeconds)
        self.tokenLeewaySeconds = tokenLeewaySeconds
        self.cluster = cluster
        self.store = store
        self.apps = apps
        self.graceSeconds = graceSeconds
        self.rooms = MeetingRoomManager(store: store, signer: ChannelGrantSigner(apps: apps), channels: channels, maxMembers: maxMembers,
                                        records: cluster, returnSeconds: graceSeconds)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
    /// Wall time in Unix milliseconds, for sessions (`server_time`); rooms read their `RoomClock`.
    static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Verifies a member token (`/stm/srvapi/v1/member/grant`).
    func verifyMember(_ token: String) throws(MeetingErrorBody) -> TokenClaims {
        let claims: TokenClaims
        do {
            claims = try AccessToken.verify(token, now: Self.now(), leeway: tokenLeewaySeconds) { [apps] in apps.app(id: $0)?.appKey }
        } catch {
            let code: MeetingErrorCode = switch error.code {
            case .tokenExpired: .tokenExpired
            case .tokenNotYetValid: .tokenNotYetValid
            default: .invalidToken
            }
            throw MeetingErrorBody(code, "token refused: \(error)")
        }
        guard claims.member != nil, Identifier.isValid(claims.sub) else { throw MeetingErrorBody(.invalidToken, "not a member token") }
        return claims
    }

    /// Enters a meeting by id or room number (or its waiting room); the answer grants its SRTC channel.
    func enter(appId: String, uid: String, nickname: String, _ req: MeetingEnterReq, connection: MeetingConnection)
        async throws(MeetingErrorBody) -> (MeetingRoom, EnterRoomResp) {
        guard memberEntries.admits(MemberKey(appId: appId, uid: uid)) else {
            throw MeetingErrorBody(.rateLimited, "too many entries; retry in a second")
        }
        if let nick = req.nickname, nick.isEmpty || nick.count > 64 || MeetingValidation.hasControl(nick) {
            throw MeetingValidation.invalid("nickname must be 1 to 64 characters without control characters")
        }
        let meeting = try store.meeting(appId: appId, ref: MeetingRef(meetingId: req.meetingId, roomNo: req.roomNo))
        guard meeting.status == .scheduled || meeting.status == .ongoing else {
            throw MeetingErrorBody(.meetingClosed, "the meeting is \(meeting.status.rawValue)")
        }
        for _ in 0..<3 {
            let room = await room(appId: appId, meeting: meeting)
            do {
                let response = try await room.enter(uid: uid, nickname: req.nickname ?? nickname, password: req.password, connection: connection)
                return (room, response)
            } catch where error.code == MeetingErrorCode.meetingClosed.rawValue && meeting.status != .ended {
                // The room emptied and closed between lookup and entry: a fresh one is made.
                let current = try store.meeting(appId: appId, meetingId: meeting.meetingId)
                guard current.status == .scheduled || current.status == .ongoing else { throw error }
                continue
            }
        }
        throw MeetingErrorBody(.internalError, "the meeting is closing; retry")
    }

    /// The live room of `meeting`, made when absent: from the room's record when another node ran
    /// it before (it died or drained, docs/deploy.md "Drain and failover").
    func room(appId: String, meeting: MeetingInfo) async -> MeetingRoom {
        if let room = rooms.existing(appId: appId, meetingId: meeting.meetingId) { return room }
        return rooms.room(appId: appId, meeting: meeting, record: await roomRecord(appId: appId, meetingId: meeting.meetingId))
    }

    /// The record another node kept of a meeting's live room, if any.
    private func roomRecord(appId: String, meetingId: String) async -> MeetingRoomRecord? {
        guard let cluster, let json = await cluster.record(key: MeetingRoomRecord.key(appId: appId, meetingId: meetingId)) else { return nil }
        return try? JSONDecoder().decode(MeetingRoomRecord.self, from: json)
    }

    /// The live room a meeting channel's join or publish asks about. On a cluster, a member's
    /// SRTC session may reach the node that took the meeting's channel over before its meeting
    /// session enters again there: the room is then made from its record, if `uid` was in it.
    func room(forChannelOf meetingId: String, appId: String, uid: String) async -> MeetingRoom? {
        if let room = rooms.existing(appId: appId, meetingId: meetingId) { return room }
        guard let record = await roomRecord(appId: appId, meetingId: meetingId), record.members.contains(where: { $0.uid == uid }),
              let meeting = try? store.meeting(appId: appId, meetingId: meetingId),
              meeting.status == .scheduled || meeting.status == .ongoing else { return nil }
        return rooms.room(appId: appId, meeting: meeting, record: record)
    }

    /// The live room of a meeting of `appId`, or `not_found` (nobody in it).
    func liveRoom(appId: String, meetingId: String) throws(MeetingErrorBody) -> MeetingRoom {
        _ = try store.meeting(appId: appId, meetingId: meetingId)
        guard let room = rooms.existing(appId: appId, meetingId: meetingId) else {
            throw MeetingErrorBody(.notFound, "nobody is in meeting \(meetingId.prefix(64))")
        }
        return room
    }

    /// Ends a meeting from the backend: live members get `room_ended`, the channel closes.
    func end(appId: String, meetingId: String, by uid: String?) async throws(MeetingErrorBody) -> MeetingInfo {
        let meeting = try store.meeting(appId: appId, meetingId: meetingId)
        guard meeting.status == .scheduled || meeting.status == .ongoing else {
            throw MeetingErrorBody(.meetingClosed, "the meeting is \(meeting.status.rawValue)")
        }
        if let room = rooms.existing(appId: appId, meetingId: meetingId) { await room.end(by: uid) }
        try store.markEnded(meetingId)
        return try store.meeting(appId: appId, meetingId: meetingId)
    }

    /// Updates a meeting and tells its live room.
    func update(appId: String, meetingId: String, by uid: String?, _ req: MeetingUpdateReq) async throws(MeetingErrorBody) -> MeetingInfo {
        let info = try store.update(appId: appId, meetingId: meetingId, by: uid, req)
        if let room = rooms.existing(appId: appId, meetingId: meetingId) { await room.meetingUpdated(info) }
        return info
    }

    /// The members in a live meeting (empty when nobody is in it).
    func members(appId: String, meetingId: String) async -> [MeetingUserInfo] {
        guard let room = rooms.existing(appId: appId, meetingId: meetingId) else { return [] }
        return await room.users
    }

    /// A meeting as `uid` may see it: the password only for its host.
    static func visible(_ meeting: MeetingInfo, to uid: String) -> MeetingInfo {
        var m = meeting
        if m.hostUid != uid { m.password = nil }
        return m
    }

    /// This node drains (docs/deploy.md, "Drain and failover"): every live room writes its record
    /// and closes without anyone exiting, every session ends here without leaving its meeting (its
    /// record stays) and its socket closes with 1012. The clients log in again through another
    /// node, are answered `rejoin` and enter again, on the node that now runs the meeting's
    /// channel, where the room starts from its record: nobody is told `disconnected`.
    func handOff() async {
        handingOff.store(true, ordering: .relaxed)
        for room in rooms.all {
            await room.handOff()
            await cluster?.release(room.channelKey)
        }
        for session in sessions.all { session.release(closing: WebSocketCloseCode(rawValue: 1012), reason: "node draining") }
    }

    /// Whether this node handed its meetings off (it refuses new meeting WebSockets).
    var handedOff: Bool { handingOff.load(ordering: .relaxed) }

    /// Ends every live meeting's sessions (server shutdown), without marking meetings ended.
    func shutdown() async {
        for room in rooms.all { await room.shutdown() }
        for session in sessions.all {
            session.closeSocket(reason: "server shutdown")
            await session.end(reason: .disconnected)
        }
    }
}

extension MeetingRoom {
    /// Server shutdown: every member and waiter gets `disconnected` and is removed; the meeting
    /// stays ongoing.
    func shutdown() {
        closed = true
        endTimers()
        for (uid, m) in members {
            m.connection.send(.disconnected, DisconnectedEvent(reason: "server_shutdown", message: "the server is stopping"))
            store.recordExit(m.attendanceId, reason: .disconnected)
            m.connection.removed(from: self)
            members[uid] = nil
        }
        for (uid, w) in waiting {
            w.connection.send(.disconnected, DisconnectedEvent(reason: "server_shutdown", message: "the server is stopping"))
            w.connection.removed(from: self)
            waiting[uid] = nil
        }
    }
}
