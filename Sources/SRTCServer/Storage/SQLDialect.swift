/// What differs between the two engines in the SQL our stores write. Statements are written once,
/// in SQLite's spelling; PostgreSQL gets them rewritten here:
/// - placeholders: `?` becomes `$1`, `$2`… (PostgreSQL manual §8.1 "Value expressions: positional
///   parameters"); a `?` inside a quoted literal or identifier stays;
/// - column types in migrations: SQLite's `INTEGER` is 64-bit and PostgreSQL's is 32-bit (our
///   times are Unix milliseconds), so `INTEGER` becomes `BIGINT`, `INTEGER PRIMARY KEY
///   AUTOINCREMENT` becomes `BIGSERIAL PRIMARY KEY` and `BLOB` becomes `BYTEA`.
public enum SQLDialect: String, Sendable, Equatable {
    case sqlite
    case postgres

    /// `sql` with `?` placeholders as this engine numbers them.
    public func placeholders(_ sql: String) -> String {
        guard self == .postgres, sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var quote: Character?
        var index = 0
        for c in sql {
            if let q = quote {
                if c == q { quote = nil }
                out.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                out.append(c)
            } else if c == "?" {
                index += 1
                out += "$\(index)"
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// A migration statement (written with SQLite's type names) as this engine declares it.
    public func ddl(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        return sql
            .replacing(#/\bINTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b/#, with: "BIGSERIAL PRIMARY KEY")
            .replacing(#/\bINTEGER\b/#, with: "BIGINT")
            .replacing(#/\bBLOB\b/#, with: "BYTEA")
    }
}
