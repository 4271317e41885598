import SRTCProtocol
import SRTCServer

/// `IMStore` in the server's database, SQLite or PostgreSQL (tables of `IMMigrations`), in the
/// SQL both engines share. Thread-safe: appends run in one transaction each and take the
/// account's row first (`UPDATE … RETURNING last_seq`), so a seq is never handed out twice.
public final class SQLIMStore: IMStore {
    private let database: any Database

    public init(database: any Database) throws(DatabaseError) {
        self.database = database
        try IMMigrations.schema.apply(to: database)
    }

    static let columns = "seq, msg_id, kind, from_uid, uid, title, content, data, call_id, channel, sent_at"

    // MARK: - Accounts

    public func touchAccount(appId: String, uid: String, now: Int64) throws(IMStoreError) {
        try run("""
            INSERT INTO im_accounts (app_id, uid, created_at, last_login_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_id, uid) DO UPDATE SET last_login_at = excluded.last_login_at
            """, [.text(appId), .text(uid), .integer(now), .integer(now)])
    }

    public func accountExists(appId: String, uid: String) throws(IMStoreError) -> Bool {
        !(try run("SELECT 1 FROM im_accounts WHERE app_id = ? AND uid = ?", [.text(appId), .text(uid)])).isEmpty
    }

    public func cursors(appId: String, uid: String) throws(IMStoreError) -> (last: Int64, acked: Int64) {
        let row = try run("SELECT last_seq, acked_seq FROM im_accounts WHERE app_id = ? AND uid = ?", [.text(appId), .text(uid)]).first
        return (row?[0].int ?? 0, row?[1].int ?? 0)
    }

    public func acknowledge(appId: String, uid: String, seq: Int64) throws(IMStoreError) {
        try run("""
            UPDATE im_accounts SET acked_seq = CASE WHEN ? > last_seq THEN last_seq ELSE ? END
            WHERE app_id = ? AND uid = ? AND acked_seq < ?
            """, [.integer(seq), .integer(seq), .text(appId), .text(uid), .integer(seq)])
    }

    // MARK: - Mailboxes

    public func append(_ d: IMMessage, appId: String, now: Int64, expiresAt: Int64, mailboxSize: Int) throws(IMStoreError) -> IMMessage {
        let key: [SQLValue] = [.text(appId), .text(d.to)]
        do {
            return try database.transaction { tx throws(DatabaseError) -> Result<IMMessage, IMStoreError> in
                try tx.query("INSERT INTO im_accounts (app_id, uid, created_at) VALUES (?, ?, ?) ON CONFLICT (app_id, uid) DO NOTHING",
                             key + [.integer(now)])
                let count = try tx.query("SELECT COUNT(*) FROM im_mailbox WHERE app_id = ? AND uid = ?", key).first?.first?.int ?? 0
                if count >= Int64(mailboxSize) {
                    // Room is made from acknowledged entries only: an unread one is never dropped.
                    try tx.query("""
                        DELETE FROM im_mailbox WHERE app_id = ? AND uid = ? AND seq IN (
                            SELECT seq FROM im_mailbox WHERE app_id = ? AND uid = ?
                            AND seq <= (SELECT acked_seq FROM im_accounts WHERE app_id = ? AND uid = ?)
                            ORDER BY seq LIMIT ?)
                        """, key + key + key + [.integer(count - Int64(mailboxSize) + 1)])
                    let left = try tx.query("SELECT COUNT(*) FROM im_mailbox WHERE app_id = ? AND uid = ?", key).first?.first?.int ?? 0
                    if left >= Int64(mailboxSize) { return .failure(.mailboxFull(uid: d.to)) }
                }
                let seq = try tx.query("UPDATE im_accounts SET last_seq = last_seq + 1 WHERE app_id = ? AND uid = ? RETURNING last_seq",
                                       key).first?.first?.int ?? 0
                try tx.query("INSERT INTO im_mailbox (app_id, uid, seq, msg_id, kind, from_uid, title, content, data, call_id, channel, sent_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             key + [.integer(seq), .text(d.msgId), .text(d.kind.rawValue), Self.optional(d.from), Self.optional(d.title),
                                    .text(d.content), Self.optional(d.data), Self.optional(d.callId), Self.optional(d.channel),
                                    .integer(now), .integer(expiresAt)])
                var stored = d
                stored.seq = seq
                stored.sentAt = now
                return .success(stored)
            }.get()
        } catch let error as IMStoreError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    public func messages(appId: String, uid: String, after seq: Int64, limit: Int) throws(IMStoreError) -> [IMMessage] {
        try run("SELECT \(Self.columns) FROM im_mailbox WHERE app_id = ? AND uid = ? AND seq > ? ORDER BY seq LIMIT ?",
                [.text(appId), .text(uid), .integer(seq), .integer(Int64(limit))]).compactMap(Self.message)
    }

    @discardableResult
    public func purge(now: Int64) throws(IMStoreError) -> Int {
        let deleted = try run("DELETE FROM im_mailbox WHERE expires_at <= ? RETURNING 1", [.integer(now)]).count
        try run("DELETE FROM im_calls WHERE expires_at <= ? AND state <> 'ringing'", [.integer(now)])
        try run("DELETE FROM im_keys WHERE expires_at <= ?", [.integer(now)])
        return deleted
    }

    // MARK: - Calls

    public func createCall(_ c: IMCall) throws(IMStoreError) {
        try run("INSERT INTO im_calls (call_id, app_id, caller, callee, channel, state, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(c.callId), .text(c.appId), .text(c.caller), .text(c.callee), Self.optional(c.channel), .text(c.state.rawValue),
                 .integer(c.createdAt), .integer(c.expiresAt)])
    }

    public func call(appId: String, callId: String) throws(IMStoreError) -> IMCall? {
        try run("SELECT call_id, app_id, caller, callee, channel, state, created_at, expires_at FROM im_calls WHERE app_id = ? AND call_id = ?",
                [.text(appId), .text(callId)]).compactMap(Self.call).first
    }

    public func transitionCall(callId: String, from: IMCallState, to: IMCallState) throws(IMStoreError) -> Bool {
        !(try run("UPDATE im_calls SET state = ? WHERE call_id = ? AND state = ? RETURNING 1",
                  [.text(to.rawValue), .text(callId), .text(from.rawValue)])).isEmpty
    }

    public func expiredCalls(now: Int64) throws(IMStoreError) -> [IMCall] {
        try run("SELECT call_id, app_id, caller, callee, channel, state, created_at, expires_at FROM im_calls WHERE state = 'ringing' AND expires_at <= ? ORDER BY expires_at",
                [.integer(now)]).compactMap(Self.call)
    }

    // MARK: - Keys

    public func claim(appId: String, key: String, now: Int64, expiresAt: Int64) throws(IMStoreError) -> Bool {
        try run("DELETE FROM im_keys WHERE app_id = ? AND key = ? AND expires_at <= ?", [.text(appId), .text(key), .integer(now)])
        return !(try run("INSERT INTO im_keys (app_id, key, expires_at) VALUES (?, ?, ?) ON CONFLICT (app_id, key) DO NOTHING RETURNING 1",
                         [.text(appId), .text(key), .integer(expiresAt)])).isEmpty
    }

    // MARK: - Internals

    @discardableResult
    private func run(_ sql: String, _ parameters: [SQLValue]) throws(IMStoreError) -> [[SQLValue]] {
        do { return try database.query(sql, parameters) } catch { throw .storage(error.description) }
    }

    private static func optional(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }

    private static func message(_ row: [SQLValue]) -> IMMessage? {
        guard row.count == 11, let seq = row[0].int, let msgId = row[1].string, let kind = row[2].string.flatMap(IMMessageKind.init),
              let to = row[4].string, let content = row[6].string, let sentAt = row[10].int else { return nil }
        return IMMessage(seq: seq, msgId: msgId, kind: kind, from: row[3].string, to: to, title: row[5].string, content: content,
                         data: row[7].string, callId: row[8].string, channel: row[9].string, sentAt: sentAt)
    }

    private static func call(_ row: [SQLValue]) -> IMCall? {
        guard row.count == 8, let id = row[0].string, let app = row[1].string, let caller = row[2].string, let callee = row[3].string,
              let state = row[5].string.flatMap(IMCallState.init), let created = row[6].int, let expires = row[7].int else { return nil }
        return IMCall(callId: id, appId: app, caller: caller, callee: callee, channel: row[4].string, state: state,
                      createdAt: created, expiresAt: expires)
    }
}
