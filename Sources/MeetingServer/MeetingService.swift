import Foundation
import RTCCrypto
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCServer

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
                                        records: cluster)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

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
            // A room this node makes may continue one another node ran (it died or drained).
            var record: MeetingRoomRecord?
            if let cluster, rooms.existing(appId: appId, meetingId: meeting.meetingId) == nil,
               let json = await cluster.record(key: MeetingRoomRecord.key(appId: appId, meetingId: meeting.meetingId)) {
                record = try? JSONDecoder().decode(MeetingRoomRecord.self, from: json)
            }
            let room = rooms.room(appId: appId, meeting: meeting, record: record)
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
