/// A module's own schema steps in the server's database (SQLite or PostgreSQL), versioned in a
/// table of its own (`<name>_schema`), since the server's version slot belongs to
/// `Migrations.server`. Steps are numbered from 1 in order and never edited once released, only
/// appended; they are written with SQLite's type names and mapped by `SQLDialect.ddl`.
public struct ModuleMigrations: Sendable {
    /// The version table's name.
    public let table: String
    /// Step n (1-based) is `steps[n - 1]`: statements run in one transaction.
    public let steps: [[String]]

    /// - Parameter name: the module's table prefix (`im` → `im_schema`).
    public init(name: String, steps: [[String]]) {
        table = name + "_schema"
        self.steps = steps
    }

    /// The latest version this build knows.
    public var latestVersion: Int { steps.count }

    /// The version `database` is at (0 before the first step).
    public func currentVersion(of database: any Database) throws(DatabaseError) -> Int {
        try database.exclusively { tx throws(DatabaseError) in try version(in: tx) }
    }

    /// Brings `database` to the latest version; returns the version found. All steps run in one
    /// transaction under `Database.exclusively`, like `Migrations.apply`.
    @discardableResult
    public func apply(to database: any Database) throws(DatabaseError) -> Int {
        let dialect = database.dialect
        return try database.exclusively { tx throws(DatabaseError) in
            let current = try version(in: tx)
            guard current <= latestVersion else { throw .schemaTooNew(found: current, supported: latestVersion) }
            for (index, statements) in steps.enumerated() where index + 1 > current {
                for statement in statements { try tx.query(dialect.ddl(statement)) }
                try tx.query("INSERT INTO \(table) (version) VALUES (?)", [.integer(Int64(index + 1))])
            }
            return current
        }
    }

    private func version(in tx: any SQLExecutor) throws(DatabaseError) -> Int {
        try tx.query("CREATE TABLE IF NOT EXISTS \(table) (version INTEGER NOT NULL)")
        return Int(try tx.query("SELECT MAX(version) FROM \(table)").first?.first?.int ?? 0)
    }
}
