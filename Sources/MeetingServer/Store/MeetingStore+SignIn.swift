import SMeetingProtocol
import SRTCServer

/// Sign-ins and roll calls with everyone they asked (`meeting_sign_ins`,
/// `meeting_sign_in_records`, times in Unix milliseconds). Every SQL statement about them is
/// here, in the SQL SQLite and PostgreSQL share.
extension MeetingStore {
    /// Records a sign-in or roll call as it starts, with everyone it asks (nobody answered yet).
    func recordSignInStart(appId: String, meetingId: String, _ info: SignInInfo, roster: [SignInRecord]) throws(MeetingErrorBody) {
        do {
            try database.transaction { tx throws(DatabaseError) in
                try tx.query("INSERT INTO meeting_sign_ins (sign_in_id, meeting_id, app_id, kind, started_by, started_at, deadline, target_uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                    .text(info.signInId), .text(meetingId), .text(appId), .text(info.kind.rawValue), .text(info.startedBy),
                    .integer(info.startedAt), .integer(info.deadline), info.targetUid.map(SQLValue.text) ?? .null,
                ])
                for (position, record) in roster.enumerated() {
                    try tx.query("INSERT INTO meeting_sign_in_records (sign_in_id, position, uid, nickname) VALUES (?, ?, ?, ?)",
                                 [.text(info.signInId), .integer(Int64(position)), .text(record.uid), .text(record.nickname)])
                }
            }
        } catch { throw Self.storageFailure(error) }
    }

    /// Adds a member who entered while a sign-in runs.
    func addSignInMember(signInId: String, uid: String, nickname: String) throws(MeetingErrorBody) {
        do {
            try database.query("""
                INSERT INTO meeting_sign_in_records (sign_in_id, position, uid, nickname)
                VALUES (?, (SELECT COALESCE(MAX(position), -1) + 1 FROM meeting_sign_in_records WHERE sign_in_id = ?), ?, ?)
                ON CONFLICT DO NOTHING
                """, [.text(signInId), .text(signInId), .text(uid), .text(nickname)])
        } catch { throw Self.storageFailure(error) }
    }

    /// Records an answer (the first one stands).
    func recordSignInAnswer(signInId: String, uid: String, signedAt: Int64) throws(MeetingErrorBody) {
        do {
            try database.query("UPDATE meeting_sign_in_records SET signed_at = ? WHERE sign_in_id = ? AND uid = ? AND signed_at IS NULL",
                               [.integer(signedAt), .text(signInId), .text(uid)])
        } catch { throw Self.storageFailure(error) }
    }

    /// Records the end of a sign-in or roll call.
    func recordSignInEnd(signInId: String, endedAt: Int64) throws(MeetingErrorBody) {
        do {
            try database.query("UPDATE meeting_sign_ins SET ended_at = ? WHERE sign_in_id = ? AND ended_at IS NULL", [.integer(endedAt), .text(signInId)])
        } catch { throw Self.storageFailure(error) }
    }

    /// Whether `signInId` is a sign-in or roll call of the meeting.
    func signInExists(appId: String, meetingId: String, signInId: String) throws(MeetingErrorBody) -> Bool {
        do {
            return try !database.query("SELECT 1 FROM meeting_sign_ins WHERE sign_in_id = ? AND meeting_id = ? AND app_id = ?",
                                       [.text(signInId), .text(meetingId), .text(appId)]).isEmpty
        } catch { throw Self.storageFailure(error) }
    }

    /// Every sign-in and roll call of a meeting, oldest first, with who answered and when.
    public func signIns(appId: String, meetingId: String) throws(MeetingErrorBody) -> [SignInResult] {
        _ = try meeting(appId: appId, meetingId: meetingId)
        do {
            let rows = try database.query("""
                SELECT sign_in_id, kind, started_by, started_at, deadline, ended_at, target_uid FROM meeting_sign_ins
                WHERE meeting_id = ? AND app_id = ? ORDER BY started_at, sign_in_id
                """, [.text(meetingId), .text(appId)])
            return try rows.map { row throws(DatabaseError) -> SignInResult in
                let id = row[0].string ?? ""
                let info = SignInInfo(signInId: id, kind: row[1].string.flatMap(SignInKind.init) ?? .signIn, startedBy: row[2].string ?? "",
                                      startedAt: row[3].int ?? 0, deadline: row[4].int ?? 0, targetUid: row[6].string)
                let records = try database.query("SELECT uid, nickname, signed_at FROM meeting_sign_in_records WHERE sign_in_id = ? ORDER BY position",
                                                 [.text(id)]).map { r in
                    SignInRecord(uid: r[0].string ?? "", nickname: r[1].string ?? "", signedAt: r[2].int)
                }
                return SignInResult(signIn: info, endedAt: row[5].int, records: records)
            }
        } catch { throw Self.storageFailure(error) }
    }
}
