import Foundation
import RTCCrypto
import SMeetingProtocol
import SRTCServer

/// One member's stay in a meeting (the attendance history).
public struct AttendanceRecord: Codable, Sendable, Equatable {
    public var uid: String
    public var nickname: String
    public var role: Role
    /// Unix seconds.
    public var enteredAt: Int64
    public var exitedAt: Int64?
    public var exitReason: ExitReason?
}

/// Meetings and attendance in the server's database (SQLite or PostgreSQL). Thread-safe (the database serializes);
/// every failure is a `MeetingErrorBody` with its code (database failures are `internal_error`).
public final class MeetingStore: Sendable {
    let database: any Database
    private let clock: @Sendable () -> Int64
    private let roomNumbers: @Sendable () -> String

    /// - Parameters:
    ///   - clock: Unix seconds.
    ///   - roomNumbers: draws a 9-digit room number (random by default; tests inject collisions).
    public init(database: any Database, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
                roomNumbers: @escaping @Sendable () -> String = MeetingStore.randomRoomNumber) throws(DatabaseError) {
        self.database = database
        self.clock = clock
        self.roomNumbers = roomNumbers
        try MeetingMigrations.apply(to: database)
    }

    /// A uniformly drawn number from 100000000 to 999999999 (never a leading zero).
    public static func randomRoomNumber() -> String {
        let bytes = SecureRandom.bytes(8)
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(100_000_000 + value % 900_000_000)
    }

    static let columns = "meeting_id, room_no, title, type, mode, attend_type, password, host_uid, status, plan_time, plan_dur, created_at, updated_at, started_at, ended_at, waiting_room, e2ee"

    // MARK: - Meetings

    /// Creates a meeting hosted by `hostUid`; draws a room number until one is free (at most 16 tries).
    public func create(appId: String, hostUid: String, _ req: MeetingCreateReq) throws(MeetingErrorBody) -> MeetingInfo {
        try MeetingValidation.check(req)
        let now = clock()
        let meetingId = "MT" + SecureRandom.string(count: 18, alphabet: "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        let appointment = req.type == .appointment
        let conferee = Array(Set(req.conferee ?? [])).sorted()
        for _ in 0..<16 {
            let roomNo = roomNumbers()
            guard MeetingValidation.isRoomNo(roomNo) else { throw MeetingErrorBody(.internalError, "room number generator gave \(roomNo)") }
            do {
                try database.transaction { tx throws(DatabaseError) in
                    try tx.query("INSERT INTO meetings (\(Self.columns), app_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?)", [
                        .text(meetingId), .text(roomNo), .text(req.title), .text(req.type.rawValue), .text(req.mode.rawValue),
                        .text(req.attendType.rawValue), req.password.map(SQLValue.text) ?? .null, .text(hostUid),
                        .text(MeetingStatus.scheduled.rawValue), appointment ? req.planTime.map(SQLValue.integer) ?? .null : .null,
                        appointment ? req.planDur.map { .integer(Int64($0)) } ?? .null : .null, .integer(now), .integer(now),
                        .integer(req.waitingRoom ? 1 : 0), .integer(req.e2ee ? 1 : 0), .text(appId),
                    ])
                    for uid in conferee { try tx.query("INSERT INTO meeting_conferees (meeting_id, uid) VALUES (?, ?)", [.text(meetingId), .text(uid)]) }
                }
            } catch let error where error.isUniqueViolation && error.description.contains("room_no") {
                continue  // the unique room number is taken: draw again
            } catch {
                throw Self.storageFailure(error)
            }
            return try meeting(appId: appId, meetingId: meetingId)
        }
        throw MeetingErrorBody(.internalError, "no free room number after 16 draws")
    }

    /// The meeting `meetingId` of `appId`.
    public func meeting(appId: String, meetingId: String) throws(MeetingErrorBody) -> MeetingInfo {
        guard let m = try select("WHERE app_id = ? AND meeting_id = ?", [.text(appId), .text(meetingId)]).first else {
            throw MeetingErrorBody(.notFound, "no meeting \(meetingId.prefix(64))")
        }
        return m
    }

    /// The meeting with room number `roomNo` of `appId`.
    public func meeting(appId: String, roomNo: String) throws(MeetingErrorBody) -> MeetingInfo {
        guard MeetingValidation.isRoomNo(roomNo) else { throw MeetingValidation.invalid("room_no must be 9 digits, the first not 0") }
        guard let m = try select("WHERE app_id = ? AND room_no = ?", [.text(appId), .text(roomNo)]).first else {
            throw MeetingErrorBody(.notFound, "no meeting with room number \(roomNo)")
        }
        return m
    }

    /// By id or by room number (`meeting_id` wins when both are given).
    public func meeting(appId: String, ref: MeetingRef) throws(MeetingErrorBody) -> MeetingInfo {
        if let id = ref.meetingId { return try meeting(appId: appId, meetingId: id) }
        if let no = ref.roomNo { return try meeting(appId: appId, roomNo: no) }
        throw MeetingErrorBody(.malformedBody, "missing field meeting_id or room_no")
    }

    /// Changes a scheduled or ongoing meeting; `by` (when given) must be its host.
    public func update(appId: String, meetingId: String, by uid: String?, _ req: MeetingUpdateReq) throws(MeetingErrorBody) -> MeetingInfo {
        var m = try meeting(appId: appId, meetingId: meetingId)
        if let uid, uid != m.hostUid { throw MeetingErrorBody(.permissionDenied, "only the host may update the meeting") }
        guard m.status == .scheduled || m.status == .ongoing else { throw MeetingErrorBody(.meetingClosed, "the meeting is \(m.status.rawValue)") }
        if let title = req.title { try MeetingValidation.checkTitle(title); m.title = title }
        if let mode = req.mode { m.mode = mode }
        if let attend = req.attendType { m.attendType = attend }
        if let password = req.password { m.password = password }
        if let conferee = req.conferee { try MeetingValidation.checkConferee(conferee); m.conferee = Array(Set(conferee)).sorted() }
        if let waitingRoom = req.waitingRoom { m.waitingRoom = waitingRoom }
        if m.type == .appointment {
            if let t = req.planTime { m.planTime = t }
            if let d = req.planDur { m.planDur = d }
            try MeetingValidation.checkPlan(time: m.planTime, dur: m.planDur)
        }
        if m.attendType == .password { try MeetingValidation.checkPassword(m.password) }
        if m.attendType == .invitation, m.conferee.isEmpty { throw MeetingValidation.invalid("an invitation meeting needs conferee") }
        let updated = m
        let now = clock()
        do {
            try database.transaction { tx throws(DatabaseError) in
                try tx.query("UPDATE meetings SET title = ?, mode = ?, attend_type = ?, password = ?, plan_time = ?, plan_dur = ?, waiting_room = ?, updated_at = ? WHERE meeting_id = ?", [
                    .text(updated.title), .text(updated.mode.rawValue), .text(updated.attendType.rawValue), updated.password.map(SQLValue.text) ?? .null,
                    updated.planTime.map(SQLValue.integer) ?? .null, updated.planDur.map { .integer(Int64($0)) } ?? .null,
                    .integer(updated.waitingRoom ? 1 : 0), .integer(now), .text(meetingId),
                ])
                if req.conferee != nil {
                    try tx.query("DELETE FROM meeting_conferees WHERE meeting_id = ?", [.text(meetingId)])
                    for uid in updated.conferee { try tx.query("INSERT INTO meeting_conferees (meeting_id, uid) VALUES (?, ?)", [.text(meetingId), .text(uid)]) }
                }
            }
        } catch { throw Self.storageFailure(error) }
        return try meeting(appId: appId, meetingId: meetingId)
    }

    /// Cancels a meeting nobody has entered yet; `by` (when given) must be its host.
    public func cancel(appId: String, meetingId: String, by uid: String?) throws(MeetingErrorBody) -> MeetingInfo {
        let m = try meeting(appId: appId, meetingId: meetingId)
        if let uid, uid != m.hostUid { throw MeetingErrorBody(.permissionDenied, "only the host may cancel the meeting") }
        guard m.status == .scheduled else {
            throw MeetingErrorBody(m.status == .ongoing ? .wrongState : .meetingClosed, "a meeting that is \(m.status.rawValue) cannot be cancelled")
        }
        try setStatus(meetingId, .cancelled, column: "ended_at")
        return try meeting(appId: appId, meetingId: meetingId)
    }

    /// Marks a scheduled meeting ongoing (its first entry); an ongoing one is left alone.
    func markStarted(_ meetingId: String) throws(MeetingErrorBody) {
        do {
            try database.query("UPDATE meetings SET status = 'ongoing', started_at = COALESCE(started_at, ?), updated_at = ? WHERE meeting_id = ? AND status = 'scheduled'",
                               [.integer(clock()), .integer(clock()), .text(meetingId)])
        } catch { throw Self.storageFailure(error) }
    }

    /// Marks a meeting ended.
    func markEnded(_ meetingId: String) throws(MeetingErrorBody) {
        try setStatus(meetingId, .ended, column: "ended_at")
    }

    private func setStatus(_ meetingId: String, _ status: MeetingStatus, column: String) throws(MeetingErrorBody) {
        let now = clock()
        do {
            try database.query("UPDATE meetings SET status = ?, \(column) = ?, updated_at = ? WHERE meeting_id = ?",
                               [.text(status.rawValue), .integer(now), .integer(now), .text(meetingId)])
        } catch { throw Self.storageFailure(error) }
    }

    // MARK: - Lists

    /// Meetings `uid` hosts or is invited to that are not over, soonest first.
    public func attendee(appId: String, uid: String, page: Int, pageSize: Int) throws(MeetingErrorBody) -> MeetingPage {
        let filter = "WHERE app_id = ? AND status IN ('scheduled', 'ongoing') AND (host_uid = ? OR meeting_id IN (SELECT meeting_id FROM meeting_conferees WHERE uid = ?))"
        return try fetchPage(filter, [.text(appId), .text(uid), .text(uid)], order: "COALESCE(plan_time, created_at) ASC, meeting_id", page: page, pageSize: pageSize)
    }

    /// Meetings `uid` has entered, the most recent entry first.
    public func attended(appId: String, uid: String, page: Int, pageSize: Int) throws(MeetingErrorBody) -> MeetingPage {
        let filter = "WHERE app_id = ? AND meeting_id IN (SELECT meeting_id FROM meeting_attendance WHERE app_id = ? AND uid = ?)"
        let order = "(SELECT MAX(entered_at) FROM meeting_attendance a WHERE a.meeting_id = meetings.meeting_id AND a.uid = ?) DESC, meeting_id"
        return try fetchPage(filter, [.text(appId), .text(appId), .text(uid)], order: order, orderParameters: [.text(uid)], page: page, pageSize: pageSize)
    }

    /// Every meeting of `appId`, newest first, optionally of one status or host (server API).
    public func list(appId: String, status: MeetingStatus?, hostUid: String?, page: Int, pageSize: Int) throws(MeetingErrorBody) -> MeetingPage {
        var filter = "WHERE app_id = ?"
        var parameters: [SQLValue] = [.text(appId)]
        if let status { filter += " AND status = ?"; parameters.append(.text(status.rawValue)) }
        if let hostUid { filter += " AND host_uid = ?"; parameters.append(.text(hostUid)) }
        return try fetchPage(filter, parameters, order: "created_at DESC, meeting_id", page: page, pageSize: pageSize)
    }

    /// Pages count from 1; 1 to 100 a page.
    static func checkPage(_ page: Int, _ pageSize: Int) throws(MeetingErrorBody) {
        guard page >= 1, page <= 1_000_000 else { throw MeetingValidation.invalid("page counts from 1") }
        guard (1...100).contains(pageSize) else { throw MeetingValidation.invalid("page_size must be 1 to 100") }
    }

    private func fetchPage(_ filter: String, _ parameters: [SQLValue], order: String, orderParameters: [SQLValue] = [],
                      page: Int, pageSize: Int) throws(MeetingErrorBody) -> MeetingPage {
        try Self.checkPage(page, pageSize)
        let total: Int
        do { total = Int(try database.query("SELECT COUNT(*) FROM meetings \(filter)", parameters).first?.first?.int ?? 0) } catch { throw Self.storageFailure(error) }
        let list = try select("\(filter) ORDER BY \(order) LIMIT ? OFFSET ?",
                              parameters + orderParameters + [.integer(Int64(pageSize)), .integer(Int64((page - 1) * pageSize))])
        return MeetingPage(list: list, page: page, pageSize: pageSize, total: total)
    }

    // MARK: - Attendance

    /// Records an entry; returns its row id for `recordExit`.
    func recordEnter(appId: String, meetingId: String, uid: String, nickname: String, role: Role) throws(MeetingErrorBody) -> Int64 {
        do {
            return try database.query("INSERT INTO meeting_attendance (meeting_id, app_id, uid, nickname, role, entered_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                                      [.text(meetingId), .text(appId), .text(uid), .text(nickname), .text(role.rawValue), .integer(clock())]).first?.first?.int ?? 0
        } catch { throw Self.storageFailure(error) }
    }

    /// Records the end of a stay.
    func recordExit(_ id: Int64, reason: ExitReason) {
        _ = try? database.query("UPDATE meeting_attendance SET exited_at = ?, exit_reason = ? WHERE id = ? AND exited_at IS NULL",
                                [.integer(clock()), .text(reason.rawValue), .integer(id)])
    }

    /// Ends the stays a crash left open (a clean stop ends each one): `disconnected` at the
    /// restart, the crash's own time being unknown. Returns how many. Not on a cluster, where the
    /// open stays may be members still in a meeting another node runs.
    func closeStaysLeftOpen() -> Int {
        (try? database.query("UPDATE meeting_attendance SET exited_at = ?, exit_reason = ? WHERE exited_at IS NULL RETURNING id",
                             [.integer(clock()), .text(ExitReason.disconnected.rawValue)]).count) ?? 0
    }

    /// Who attended `meetingId`, in order of entry.
    public func attendance(appId: String, meetingId: String) throws(MeetingErrorBody) -> [AttendanceRecord] {
        _ = try meeting(appId: appId, meetingId: meetingId)
        do {
            return try database.query("SELECT uid, nickname, role, entered_at, exited_at, exit_reason FROM meeting_attendance WHERE meeting_id = ? ORDER BY id",
                                      [.text(meetingId)]).map { row in
                AttendanceRecord(uid: row[0].string ?? "", nickname: row[1].string ?? "", role: row[2].string.flatMap(Role.init) ?? .member,
                                 enteredAt: row[3].int ?? 0, exitedAt: row[4].int, exitReason: row[5].string.flatMap(ExitReason.init))
            }
        } catch { throw Self.storageFailure(error) }
    }

    // MARK: - Reminders

    /// Scheduled appointments of every app whose `plan_time` is after `start` and at most `end`
    /// (Unix seconds), soonest first (`MeetingReminders`).
    func appointments(startingAfter start: Int64, upTo end: Int64) throws(MeetingErrorBody) -> [(appId: String, meeting: MeetingInfo)] {
        let rows: [[SQLValue]]
        do {
            rows = try database.query(
                "SELECT app_id, meeting_id FROM meetings WHERE status = 'scheduled' AND type = 'appointment' AND plan_time > ? AND plan_time <= ? ORDER BY plan_time, meeting_id",
                [.integer(start), .integer(end)])
        } catch { throw Self.storageFailure(error) }
        var result: [(appId: String, meeting: MeetingInfo)] = []
        for row in rows {
            guard let appId = row[0].string, let id = row[1].string else { continue }
            result.append((appId, try meeting(appId: appId, meetingId: id)))
        }
        return result
    }

    // MARK: - Internals

    private func select(_ tail: String, _ parameters: [SQLValue]) throws(MeetingErrorBody) -> [MeetingInfo] {
        let rows: [[SQLValue]]
        do { rows = try database.query("SELECT \(Self.columns) FROM meetings \(tail)", parameters) } catch { throw Self.storageFailure(error) }
        var result: [MeetingInfo] = []
        for row in rows {
            guard row.count == 17, let id = row[0].string, let roomNo = row[1].string, let title = row[2].string,
                  let type = row[3].string.flatMap(MeetingType.init), let mode = row[4].string.flatMap(MeetingMode.init),
                  let attend = row[5].string.flatMap(AttendType.init), let host = row[7].string,
                  let status = row[8].string.flatMap(MeetingStatus.init) else { throw MeetingErrorBody(.internalError, "unreadable meeting row") }
            let conferee: [String]
            do { conferee = try database.query("SELECT uid FROM meeting_conferees WHERE meeting_id = ? ORDER BY uid", [.text(id)]).compactMap { $0.first?.string } } catch {
                throw Self.storageFailure(error)
            }
            result.append(MeetingInfo(meetingId: id, roomNo: roomNo, title: title, type: type, mode: mode, attendType: attend,
                                      password: row[6].string, conferee: conferee, hostUid: host, status: status, planTime: row[9].int,
                                      planDur: row[10].int.map { Int($0) }, createdAt: row[11].int ?? 0, updatedAt: row[12].int ?? 0,
                                      startedAt: row[13].int, endedAt: row[14].int, waitingRoom: (row[15].int ?? 0) != 0,
                                      e2ee: (row[16].int ?? 0) != 0))
        }
        return result
    }

    static func storageFailure(_ error: any Error) -> MeetingErrorBody {
        if let body = error as? MeetingErrorBody { return body }
        return MeetingErrorBody(.internalError, "storage failed: \(error)")
    }
}
