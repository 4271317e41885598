import SRTCServer
import Testing

/// The two stores the server runs on; store tests take one as their argument and run on both.
public enum TestStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    public var testDescription: String { rawValue }

    /// A fresh, empty store of this kind. On a machine without PostgreSQL the test is cancelled
    /// (reported as skipped with the reason, and printed), never passed silently.
    public func open() async throws -> any Database {
        switch self {
        case .sqlite: return try SQLiteDatabase(path: ":memory:")
        case .postgres: return try await Self.unlessUnavailable { try await TestPostgres.freshDatabase() }
        }
    }

    /// `count` connections to one fresh, empty store of this kind, as separate processes would
    /// hold them (SQLite: one file in a temp directory, removed when the process exits).
    public func openShared(count: Int) async throws -> [any Database] {
        switch self {
        case .sqlite:
            let directory = try TestDaemon.makeDirectory("srtc-sqlite")
            try TestDaemon.cleanUpAfterExit("rm -rf \(directory)")
            return try (0..<count).map { _ in try SQLiteDatabase(path: directory + "/shared.sqlite3") }
        case .postgres:
            let url = try await Self.unlessUnavailable { try await TestPostgres.freshDatabaseURL() }
            return try (0..<count).map { _ in try PostgresDatabase(url: url) }
        }
    }

    /// Points `config` at a fresh store of this kind (`--database-url` for PostgreSQL).
    public func configure(_ config: inout ServerConfig) async throws {
        config.dataDir = ":memory:"
        if self == .postgres { config.cluster.databaseURL = try await Self.unlessUnavailable { try await TestPostgres.freshDatabaseURL() } }
    }

    private static func unlessUnavailable<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as TestPostgres.Unavailable {
            print("⚠️ SKIPPED (PostgreSQL store): \(error)")
            try Test.cancel("\(error)")
        }
    }
}
