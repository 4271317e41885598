extension Database {
    /// The key of the PostgreSQL advisory lock that schema changes and first-start set-up hold
    /// ("SRTC" in ASCII); any constant works as long as every node uses the same one.
    static var schemaLockKey: Int64 { 0x5352_5443 }

    /// Runs `body` in one transaction that no other process sharing this database runs at the
    /// same time: nodes started together must not each create the same tables (PostgreSQL's
    /// catalog refuses the second `CREATE TABLE` with 23505 even under `IF NOT EXISTS`).
    ///
    /// On PostgreSQL the transaction first takes a transaction-scoped advisory lock
    /// (`pg_advisory_xact_lock`, PostgreSQL manual §9.27.10), released by its commit or rollback.
    /// On SQLite `transaction` already begins with `BEGIN IMMEDIATE`, which takes the file's write
    /// lock before anything is read, so a second process waits in the busy handler; SQLite's DDL
    /// is transactional, so a failed step leaves nothing behind on either engine.
    public func exclusively<T>(_ body: (any SQLExecutor) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try transaction { tx throws(DatabaseError) in
            if dialect == .postgres { try tx.query("SELECT pg_advisory_xact_lock(?)", [.integer(Self.schemaLockKey)]) }
            return try body(tx)
        }
    }
}
