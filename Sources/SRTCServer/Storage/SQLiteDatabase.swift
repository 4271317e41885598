import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQLite connection in WAL mode, serialized by a mutex. The control plane's writes are few
/// (apps, meetings, webhooks), so one connection is simpler than a pool and fast enough.
public final class SQLiteDatabase: Database {
    public var dialect: SQLDialect { .sqlite }
    private let handle: Mutex<OpaquePointer?>

    /// Opens (creating if needed) the database at `path`; `":memory:"` for tests. The file holds
    /// app keys, so it and its WAL and shared-memory files are readable by the owner only (0600),
    /// whatever the umask; a file an older server created 0644 is narrowed on open.
    public init(path: String) throws(DatabaseError) {
        if path != ":memory:" { try Self.restrictPermissions(path) }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw .sqlite(code: rc, message: message)
        }
        sqlite3_busy_timeout(db, 5000)
        handle = Mutex(db)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    /// The mode of the database files: SQLite gives its `-wal` and `-shm` files the main file's mode.
    public static let fileMode: mode_t = 0o600

    private static func restrictPermissions(_ path: String) throws(DatabaseError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw .sqlite(code: SQLITE_CANTOPEN, message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fchmod(fd, fileMode) == 0 else { throw .sqlite(code: SQLITE_PERM, message: "cannot chmod \(path): \(String(cString: strerror(errno)))") }
        for suffix in ["-wal", "-shm"] { _ = chmod(path + suffix, fileMode) }  // absent until SQLite makes them
    }

    deinit {
        handle.withLock { db in
            sqlite3_close_v2(db)
            db = nil
        }
    }

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws(DatabaseError) {
        try handle.withLock { db throws(DatabaseError) in
            var error: UnsafeMutablePointer<CChar>?
            let rc = sqlite3_exec(db, sql, nil, nil, &error)
            if rc != SQLITE_OK {
                let message = error.map { String(cString: $0) } ?? "error"
                sqlite3_free(error)
                throw .sqlite(code: rc, message: message)
            }
        }
    }

    /// Runs `sql` with `parameters` bound to `?` placeholders and returns every row.
    @discardableResult
    public func query(_ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]] {
        try handle.withLock { db throws(DatabaseError) in try Self.run(db, sql, parameters) }
    }

    /// Runs `body` inside one transaction, rolled back if it throws.
    public func transaction<T>(_ body: (any SQLExecutor) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try handle.withLock { db throws(DatabaseError) in
            _ = try Self.run(db, "BEGIN IMMEDIATE", [])
            do throws(DatabaseError) {
                let result = try body(Transaction(db: db))
                _ = try Self.run(db, "COMMIT", [])
                return result
            } catch {
                _ = try? Self.run(db, "ROLLBACK", [])
                throw error
            }
        }
    }

    /// The connection as seen inside `transaction`. Unchecked: it exists only while the mutex
    /// is held, on the thread holding it.
    // @unchecked Sendable: the connection is used only while the database's mutex is held, on the thread holding it.
    struct Transaction: SQLExecutor, @unchecked Sendable {
        fileprivate let db: OpaquePointer?
        @discardableResult
        func query(_ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]] {
            try SQLiteDatabase.run(db, sql, parameters)
        }
    }

    fileprivate static func run(_ db: OpaquePointer?, _ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw lastError(db) }
        defer { sqlite3_finalize(statement) }
        for (i, value) in parameters.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
            case .real(let v): rc = sqlite3_bind_double(statement, index, v)
            case .text(let v): rc = sqlite3_bind_text(statement, index, v, -1, srtc_sqlite_transient())
            case .blob(let v): rc = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), srtc_sqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw lastError(db) }
        }
        var rows: [[SQLValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw lastError(db) }
            let columns = sqlite3_column_count(statement)
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for c in 0..<columns {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, c)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, c))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, c))
                    let bytes = sqlite3_column_blob(statement, c).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
                    row.append(.blob(bytes))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    private static func lastError(_ db: OpaquePointer?) -> DatabaseError {
        .sqlite(code: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)))
    }
}
