import Foundation
import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// The store contract both engines keep (SQLite, the embedded default, and PostgreSQL at
/// `--database-url`): every test here runs on both.
@Suite struct StorageTests {
    @Test func firstStartCreatesAnAppAndARestartReusesIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-data-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = ServerConfig()
        config.dataDir = dir
        let first = try ServerApp(config: config)
        let created = try #require(first.createdApp)
        let second = try ServerApp(config: config)
        #expect(second.createdApp == nil)
        #expect(second.apps.app(id: created.appId) == created)
        let mode = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func aServerOnPostgresKeepsItsAppAcrossRestartsAndWritesNoSQLiteFile() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-data-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = ServerConfig()
        try await TestStore.postgres.configure(&config)
        config.dataDir = dir
        let first = try ServerApp(config: config)
        #expect(first.database.dialect == .postgres)
        let created = try #require(first.createdApp)
        let second = try ServerApp(config: config)
        #expect(second.createdApp == nil && second.apps.app(id: created.appId) == created)
        #expect(!FileManager.default.fileExists(atPath: dir + "/srtc.sqlite3"))
    }

    @Test(arguments: TestStore.allCases)
    func migrationsAreVersionedAndRefuseANewerSchema(_ kind: TestStore) async throws {
        let db = try await kind.open()
        #expect(try Migrations.server.apply(to: db) == 0)
        #expect(try Migrations.server.apply(to: db) == Migrations.server.latestVersion)
        #expect(try Migrations.server.currentVersion(of: db) == Migrations.server.latestVersion)
        switch kind {
        case .sqlite: try db.execute("PRAGMA user_version = 99")
        case .postgres: try db.query("INSERT INTO srtc_schema (version) VALUES (99)")
        }
        #expect(throws: DatabaseError.schemaTooNew(found: 99, supported: Migrations.server.latestVersion)) { try Migrations.server.apply(to: db) }
    }

    @Test(arguments: TestStore.allCases)
    func everyValueKindRoundTrips(_ kind: TestStore) async throws {
        let db = try await kind.open()
        try Migrations.server.apply(to: db)
        // Unix milliseconds need 64 bits (a 32-bit INTEGER would overflow on PostgreSQL).
        let body: [UInt8] = [0, 1, 0x7f, 0x80, 0xff, 0, 0x5c, 0x78]
        try db.query("INSERT INTO webhook_deliveries (event_id, app_id, channel, sequence, event, body, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [.text("EV_1"), .text("app"), .null, .integer(Int64.max), .text("it's a ? and \"quote\" ü"), .blob(body),
                      .integer(1_767_225_600_123), .integer(-1)])
        let rows = try db.query("SELECT channel, sequence, event, body, next_attempt_at, created_at, attempts FROM webhook_deliveries WHERE event_id = ?", [.text("EV_1")])
        #expect(rows == [[.null, .integer(Int64.max), .text("it's a ? and \"quote\" ü"), .blob(body), .integer(1_767_225_600_123), .integer(-1), .integer(0)]])
        #expect(try db.query("SELECT ? + 0.5", [.real(1.25)]) == [[.real(1.75)]])
        #expect(try db.query("SELECT body FROM webhook_deliveries WHERE event_id = '?'").isEmpty)
    }

    @Test(arguments: TestStore.allCases)
    func aFailedTransactionLeavesNothingAndUniqueViolationsAreNamed(_ kind: TestStore) async throws {
        let db = try await kind.open()
        try Migrations.server.apply(to: db)
        let apps = try AppStore(database: db)
        try apps.upsert(appId: "app_a", appKey: "k1")
        do {
            try db.transaction { tx throws(DatabaseError) in
                try tx.query("INSERT INTO apps (app_id, app_key, created_at) VALUES (?, ?, ?)", [.text("app_b"), .text("k"), .integer(1)])
                try tx.query("INSERT INTO apps (app_id, app_key, created_at) VALUES (?, ?, ?)", [.text("app_a"), .text("k"), .integer(1)])
            }
            Issue.record("a duplicate primary key was accepted")
        } catch {
            #expect(error.isUniqueViolation, "\(error)")
        }
        #expect(try db.query("SELECT app_id FROM apps ORDER BY app_id") == [[.text("app_a")]])
        // The connection is usable after the failure, and an upsert replaces the key.
        try apps.upsert(appId: "app_a", appKey: "k2")
        #expect(try AppStore(database: db).app(id: "app_a")?.appKey == "k2")
    }

    @Test(arguments: TestStore.allCases)
    func badSQLIsAClearErrorAndLeavesTheStoreWorking(_ kind: TestStore) async throws {
        let db = try await kind.open()
        #expect(throws: DatabaseError.self) { try db.query("SELECT * FROM no_such_table") }
        #expect(try db.query("SELECT 1") == [[.integer(1)]])
    }

    @Test func anUnreachablePostgresIsAConnectionErrorNamingTheCause() throws {
        let port = try freeLoopbackPort()
        do {
            _ = try DatabaseLocator.open(url: "postgres://nobody@127.0.0.1:\(port)/none?connect_timeout=2", sqlitePath: ":memory:")
            Issue.record("connected to a closed port")
        } catch {
            guard case .connection(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("\(port)") || message.lowercased().contains("refused"), "\(message)")
        }
        #expect(throws: DatabaseError.self) { try DatabaseLocator.open(url: "mysql://x", sqlitePath: ":memory:") }
    }

    @Test func walModeIsOnForFiles() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wal-\(UUID()).sqlite3").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteDatabase(path: path)
        #expect(try db.query("PRAGMA journal_mode").first?.first?.string == "wal")
    }

    @Test func databaseFilesAreReadableByTheOwnerOnly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-mode-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func mode(_ name: String) throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.posixPermissions] as? Int
        }
        // A new database, its WAL and shared-memory files (the umask would give 0644): 0600.
        let db = try SQLiteDatabase(path: dir + "/new.sqlite3")
        try db.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        #expect(try mode("new.sqlite3") == 0o600)
        #expect(try mode("new.sqlite3-wal") == 0o600)
        #expect(try mode("new.sqlite3-shm") == 0o600)
        // A file an older server left 0644 is narrowed when opened.
        _ = FileManager.default.createFile(atPath: dir + "/old.sqlite3", contents: nil, attributes: [.posixPermissions: 0o644])
        _ = try SQLiteDatabase(path: dir + "/old.sqlite3")
        #expect(try mode("old.sqlite3") == 0o600)
    }

    @Test func placeholdersAreNumberedOutsideQuotesOnlyForPostgres() {
        let sql = "SELECT ? FROM t WHERE a = '?' AND \"b?\" = ? AND c = ?"
        #expect(SQLDialect.postgres.placeholders(sql) == "SELECT $1 FROM t WHERE a = '?' AND \"b?\" = $2 AND c = $3")
        #expect(SQLDialect.sqlite.placeholders(sql) == sql)
        #expect(SQLDialect.postgres.ddl("id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER NOT NULL, b BLOB, INTEGERS TEXT")
                == "id BIGSERIAL PRIMARY KEY, n BIGINT NOT NULL, b BYTEA, INTEGERS TEXT")
    }
}
