import Foundation

/// Versioned schema migrations, applied in order inside one transaction that holds the schema
/// lock (`Database.exclusively`). The version lives
/// in SQLite's `PRAGMA user_version`, or in the `srtc_schema` table on PostgreSQL; a migration is
/// never edited once released, only appended. Steps are written with SQLite's type names and
/// mapped for PostgreSQL by `SQLDialect.ddl`.
public struct Migrations: Sendable {
    public struct Step: Sendable {
        public let version: Int
        public let sql: String
        public init(version: Int, sql: String) { self.version = version; self.sql = sql }
    }

    public let steps: [Step]

    public init(_ steps: [Step]) {
        precondition(steps.map(\.version) == Array(1...max(steps.count, 1)).prefix(steps.count).map { $0 }, "migrations must be numbered 1, 2, 3…")
        self.steps = steps
    }

    /// The server's own schema.
    public static let server = Migrations([
        Step(version: 1, sql: """
            CREATE TABLE apps (
                app_id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                name TEXT NOT NULL DEFAULT '',
                created_at INTEGER NOT NULL
            );
            """),
        Step(version: 2, sql: """
            CREATE TABLE webhook_deliveries (
                event_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                channel TEXT,
                sequence INTEGER NOT NULL,
                event TEXT NOT NULL,
                body BLOB NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                delivered_at INTEGER,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX webhook_pending ON webhook_deliveries (delivered_at, next_attempt_at);
            """),
        // What webhook receivers were told is live, so a restart after a crash can tell them it ended.
        Step(version: 3, sql: """
            CREATE TABLE webhook_live_channels (
                app_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                PRIMARY KEY (app_id, channel)
            );
            CREATE TABLE webhook_live_users (
                app_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                uid TEXT NOT NULL,
                PRIMARY KEY (app_id, channel, uid)
            );
            """),
        // The cluster node that owns each live channel ('' on a single node), so a node's restart
        // closes only its own channels (the table is shared by every node of a cluster).
        Step(version: 4, sql: """
            ALTER TABLE webhook_live_channels ADD COLUMN node TEXT NOT NULL DEFAULT ''
            """),
    ])

    /// The latest version this build knows.
    public var latestVersion: Int { steps.last?.version ?? 0 }

    /// The version `database` is at (0 before the first step).
    public func currentVersion(of database: any Database) throws(DatabaseError) -> Int {
        try database.exclusively { tx throws(DatabaseError) in try Self.version(in: tx, dialect: database.dialect) }
    }

    /// Brings `database` to the latest version; returns the version found before. Every step
    /// runs in one transaction under `Database.exclusively`, so nodes started at the same moment
    /// apply each step once: the second finds the first's version and has nothing to do.
    @discardableResult
    public func apply(to database: any Database) throws(DatabaseError) -> Int {
        let dialect = database.dialect
        return try database.exclusively { tx throws(DatabaseError) in
            let current = try Self.version(in: tx, dialect: dialect)
            guard current <= latestVersion else { throw .schemaTooNew(found: current, supported: latestVersion) }
            for step in steps where step.version > current {
                for statement in step.sql.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !statement.isEmpty {
                    try tx.query(dialect.ddl(statement))
                }
                switch dialect {
                case .sqlite: try tx.query("PRAGMA user_version = \(step.version)")
                case .postgres: try tx.query("INSERT INTO srtc_schema (version) VALUES (?)", [.integer(Int64(step.version))])
                }
            }
            return current
        }
    }

    private static func version(in tx: any SQLExecutor, dialect: SQLDialect) throws(DatabaseError) -> Int {
        switch dialect {
        case .sqlite:
            return Int(try tx.query("PRAGMA user_version").first?.first?.int ?? 0)
        case .postgres:
            try tx.query("CREATE TABLE IF NOT EXISTS srtc_schema (version BIGINT NOT NULL)")
            return Int(try tx.query("SELECT MAX(version) FROM srtc_schema").first?.first?.int ?? 0)
        }
    }
}
