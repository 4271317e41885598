/// Errors of the server's SQL stores (SQLite and PostgreSQL).
public enum DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite returned an error; `message` is sqlite3_errmsg's text.
    case sqlite(code: Int32, message: String)
    /// PostgreSQL returned an error: its SQLSTATE (PostgreSQL manual, appendix A) and message.
    case postgres(state: String, message: String)
    /// The database cannot be reached or the URL is unusable (`--database-url`).
    case connection(String)
    /// The database was written by a newer server (its schema version is above ours).
    case schemaTooNew(found: Int, supported: Int)

    public var description: String {
        switch self {
        case .sqlite(let code, let message): return "sqlite error \(code): \(message)"
        case .postgres(let state, let message): return "postgres error \(state): \(message)"
        case .connection(let message): return "database connection failed: \(message)"
        case .schemaTooNew(let found, let supported): return "database schema v\(found) is newer than this server supports (v\(supported))"
        }
    }

    /// A UNIQUE or PRIMARY KEY constraint refused the row (SQLITE_CONSTRAINT, SQLSTATE 23505).
    public var isUniqueViolation: Bool {
        switch self {
        case .sqlite(let code, _): return code == 19
        case .postgres(let state, _): return state == "23505"
        default: return false
        }
    }
}

/// A value bound to or read from an SQL statement.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var int: Int64? { if case .integer(let v) = self { return v }; return nil }
    public var string: String? { if case .text(let v) = self { return v }; return nil }
}

/// What runs statements: a database, or one transaction of it.
public protocol SQLExecutor {
    /// Runs `sql` with `parameters` bound to `?` placeholders and returns every row.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]]
}

extension SQLExecutor {
    /// Runs `sql` without parameters.
    @discardableResult
    public func query(_ sql: String) throws(DatabaseError) -> [[SQLValue]] { try query(sql, []) }
}

/// The server's store: every table (apps, webhook outbox, meetings, attendance, sign-ins) goes
/// through this interface, written once in the SQL both engines share: `?` placeholders,
/// `ON CONFLICT`, `RETURNING`, `COALESCE`. Each implementation maps what differs (placeholder
/// syntax, column types in migrations, the schema-version slot) in `SQLDialect`, so every store
/// runs unchanged on SQLite (the embedded default) and PostgreSQL (`--database-url`, shared by a
/// cluster of nodes).
public protocol Database: SQLExecutor, Sendable {
    /// The engine, for migrations (`SQLDialect.ddl`) and the schema-version slot.
    var dialect: SQLDialect { get }
    /// Runs one or more statements without parameters or results (`;`-separated).
    func execute(_ sql: String) throws(DatabaseError)
    /// Runs `body` inside one transaction, rolled back if it throws.
    func transaction<T>(_ body: (any SQLExecutor) throws(DatabaseError) -> T) throws(DatabaseError) -> T
}

/// Opens the store a server configuration names.
public enum DatabaseLocator {
    /// `postgres://…` or `postgresql://…` (libpq's URI syntax) opens PostgreSQL; otherwise SQLite
    /// at `path` (a file, or `:memory:`).
    public static func open(url: String?, sqlitePath path: String) throws(DatabaseError) -> any Database {
        if let url, !url.isEmpty {
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw .connection("--database-url must start with postgres:// or postgresql://")
            }
            return try PostgresDatabase(url: url)
        }
        return try SQLiteDatabase(path: path)
    }
}
