import Foundation
import SRTCProtocol

/// Versioned schema migrations, applied in order inside one transaction each. The version lives
/// in `PRAGMA user_version`; a migration is never edited once released, only appended.
public struct Migrations: Sendable {
    public struct Step: Sendable {
        public let version: Int
        public let sql: String
        public init(version: Int, sql: String) { self.version = version; self.sql = sql }
    }

    public let steps: [Step]
    /// Where the version is kept: `nil` for the server's `PRAGMA user_version`; a module names a table
    /// of its own (`egress_schema`), so each schema in the shared database is versioned on its own.
    public let versionTable: String?

    public init(_ steps: [Step], versionTable: String? = nil) {
        precondition(steps.map(\.version) == Array(1...max(steps.count, 1)).prefix(steps.count).map { $0 }, "migrations must be numbered 1, 2, 3…")
        precondition(versionTable.map(Identifier.isValid) ?? true, "a version table name is a plain identifier")
        self.steps = steps
        self.versionTable = versionTable
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
    ])

    /// The latest version this build knows.
    public var latestVersion: Int { steps.last?.version ?? 0 }

    /// Brings `database` to the latest version; returns the version found before.
    @discardableResult
    public func apply(to database: Database) throws(DatabaseError) -> Int {
        let current: Int
        if let table = versionTable {
            try database.execute("CREATE TABLE IF NOT EXISTS \(table) (version INTEGER NOT NULL)")
            current = Int(try database.query("SELECT MAX(version) FROM \(table)").first?.first?.int ?? 0)
        } else {
            current = Int(try database.query("PRAGMA user_version").first?.first?.int ?? 0)
        }
        guard current <= latestVersion else { throw .schemaTooNew(found: current, supported: latestVersion) }
        for step in steps where step.version > current {
            try database.transaction { tx throws(DatabaseError) in
                for statement in step.sql.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !statement.isEmpty {
                    try tx.query(statement)
                }
                if let table = versionTable {
                    try tx.query("INSERT INTO \(table) (version) VALUES (?)", [.integer(Int64(step.version))])
                } else {
                    try tx.query("PRAGMA user_version = \(step.version)")
                }
            }
        }
        return current
    }
}
