import CPQ
import RTCCrypto
import Synchronization

/// One PostgreSQL connection through libpq, serialized by a mutex like `SQLiteDatabase`: the
/// control plane's statements are few and short, and one connection per node keeps a cluster's
/// connection count at the node count. Statements use the extended protocol (`PQexecParams`):
/// parameters travel apart from the SQL text, never spliced into it. A dropped connection is
/// re-established (`PQreset`) before the next statement.
public final class PostgresDatabase: Database {
    public var dialect: SQLDialect { .postgres }
    private let handle: Mutex<OpaquePointer?>

    /// Connects to `url` (`postgres://user:password@host:port/dbname?…`, libpq's URI syntax,
    /// PostgreSQL manual §34.1.1); waits at most 10 s unless the URL sets `connect_timeout`.
    public init(url: String) throws(DatabaseError) {
        var target = url
        if !url.contains("connect_timeout=") { target += (url.contains("?") ? "&" : "?") + "connect_timeout=10" }
        let conn = PQconnectdb(target)
        guard let conn, PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { Self.errorText($0) } ?? "out of memory"
            PQfinish(conn)
            throw .connection(message)
        }
        handle = Mutex(conn)
        // Notices ("relation already exists, skipping") are not errors; keep them off stderr.
        try execute("SET client_min_messages = warning")
    }

    deinit {
        handle.withLock { conn in
            PQfinish(conn)
            conn = nil
        }
    }

    public func execute(_ sql: String) throws(DatabaseError) {
        try handle.withLock { conn throws(DatabaseError) in
            try Self.reconnectIfNeeded(conn)
            guard let result = PQexec(conn, sql) else { throw .connection(Self.errorText(conn)) }
            defer { PQclear(result) }
            try Self.check(result, conn)
        }
    }

    @discardableResult
    public func query(_ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]] {
        try handle.withLock { conn throws(DatabaseError) in
            try Self.reconnectIfNeeded(conn)
            return try Self.run(conn, sql, parameters)
        }
    }

    public func transaction<T>(_ body: (any SQLExecutor) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try handle.withLock { conn throws(DatabaseError) in
            try Self.reconnectIfNeeded(conn)
            _ = try Self.run(conn, "BEGIN", [])
            do throws(DatabaseError) {
                let result = try body(Transaction(conn: conn))
                _ = try Self.run(conn, "COMMIT", [])
                return result
            } catch {
                _ = try? Self.run(conn, "ROLLBACK", [])
                throw error
            }
        }
    }

    /// The connection as seen inside `transaction`. Unchecked: it exists only while the mutex
    /// is held, on the thread holding it.
    // @unchecked Sendable: the connection is used only while the database's mutex is held, on the thread holding it.
    struct Transaction: SQLExecutor, @unchecked Sendable {
        fileprivate let conn: OpaquePointer?
        @discardableResult
        func query(_ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]] {
            try PostgresDatabase.run(conn, sql, parameters)
        }
    }

    // MARK: - Internals

    /// Type OIDs of `pg_type` we bind and read (PostgreSQL's `pg_type.dat`).
    private enum OID {
        static let bool: Oid = 16, bytea: Oid = 17, int8: Oid = 20, int2: Oid = 21, int4: Oid = 23, oid: Oid = 26
        static let float4: Oid = 700, float8: Oid = 701, numeric: Oid = 1700
    }

    private static func reconnectIfNeeded(_ conn: OpaquePointer?) throws(DatabaseError) {
        guard PQstatus(conn) != CONNECTION_OK else { return }
        PQreset(conn)
        guard PQstatus(conn) == CONNECTION_OK else { throw .connection(errorText(conn)) }
    }

    fileprivate static func run(_ conn: OpaquePointer?, _ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [[SQLValue]] {
        // Every parameter's bytes in one buffer: text NUL-terminated (text format), blobs raw
        // (binary format, so no escaping); integers and reals as their decimal text.
        var bytes: [UInt8] = []
        var offsets: [Int] = [], lengths: [Int32] = [], formats: [Int32] = [], types: [Oid] = [], isNull: [Bool] = []
        for value in parameters {
            offsets.append(bytes.count)
            var format: Int32 = 0, type: Oid = 0, null = false
            switch value {
            case .null: null = true
            case .integer(let v): bytes += Array(String(v).utf8); type = OID.int8
            case .real(let v): bytes += Array("\(v)".utf8); type = OID.float8
            case .text(let v): bytes += Array(v.utf8)
            case .blob(let v): bytes += v; format = 1; type = OID.bytea
            }
            lengths.append(Int32(bytes.count - offsets.last!))
            if format == 0 { bytes.append(0) }
            formats.append(format); types.append(type); isNull.append(null)
        }
        bytes.append(0)  // never empty, so the buffer has an address
        let command = SQLDialect.postgres.placeholders(sql)
        let result: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values: [UnsafePointer<CChar>?] = parameters.indices.map { i in
                isNull[i] ? nil : (base + offsets[i]).assumingMemoryBound(to: CChar.self)
            }
            return PQexecParams(conn, command, Int32(parameters.count), types, values, lengths, formats, 0)
        }
        guard let result else { throw .connection(errorText(conn)) }
        defer { PQclear(result) }
        try check(result, conn)
        return rows(of: result)
    }

    private static func check(_ result: OpaquePointer, _ conn: OpaquePointer?) throws(DatabaseError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
            if state.isEmpty && PQstatus(conn) != CONNECTION_OK { throw .connection(trimmed(message)) }
            throw .postgres(state: state, message: trimmed(message))
        }
    }

    /// Rows in text format, typed by column OID; `bytea` arrives hex-encoded (`\x…`, §8.4.1).
    private static func rows(of result: OpaquePointer) -> [[SQLValue]] {
        let count = PQntuples(result), columns = PQnfields(result)
        guard count > 0 else { return [] }
        let types = (0..<columns).map { PQftype(result, $0) }
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(Int(count))
        for r in 0..<count {
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for c in 0..<columns {
                guard PQgetisnull(result, r, c) == 0, let raw = PQgetvalue(result, r, c) else { row.append(.null); continue }
                let text = String(cString: raw)
                switch types[Int(c)] {
                case OID.int8, OID.int4, OID.int2, OID.oid: row.append(Int64(text).map(SQLValue.integer) ?? .text(text))
                case OID.bool: row.append(.integer(text == "t" ? 1 : 0))
                case OID.float4, OID.float8, OID.numeric: row.append(Double(text).map(SQLValue.real) ?? .text(text))
                case OID.bytea: row.append(.blob(Encoding.fromHex(String(text.dropFirst(2))) ?? []))
                default: row.append(.text(text))
                }
            }
            rows.append(row)
        }
        return rows
    }

    private static func errorText(_ conn: OpaquePointer?) -> String {
        trimmed(PQerrorMessage(conn).map { String(cString: $0) } ?? "unknown error")
    }

    private static func trimmed(_ s: String) -> String {
        var s = Substring(s)
        while let last = s.last, last == "\n" || last == " " { s = s.dropLast() }
        return String(s)
    }
}
