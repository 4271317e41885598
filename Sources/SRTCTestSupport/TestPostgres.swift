import Foundation
import SRTCServer
import TestWait

/// One throwaway PostgreSQL cluster per test process, started on first use on a free loopback
/// port in a temp directory (`initdb`, `pg_ctl`; as the `postgres` OS user when the tests run as
/// root, since PostgreSQL refuses root) and stopped when the process exits. Each test gets its own
/// fresh database in it, so tests stay independent and cost one `CREATE DATABASE` each.
public enum TestPostgres {
    /// PostgreSQL's binaries are not installed (scripts/install-deps installs them).
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The running cluster: its port and superuser URL.
    struct Cluster: Sendable {
        let port: UInt16
        func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }
    }

    private static let cluster = Task { try await offPool { try start() } }

    /// The URL of a new, empty database in the shared cluster.
    public static func freshDatabaseURL() async throws -> String {
        let cluster = try await cluster.value
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await offPool {
            let admin = try PostgresDatabase(url: cluster.url(database: "postgres"))
            try admin.execute("CREATE DATABASE \(name)")
        }
        return cluster.url(database: name)
    }

    /// A connection to a new, empty database in the shared cluster.
    public static func freshDatabase() async throws -> PostgresDatabase {
        let url = try await freshDatabaseURL()
        return try await offPool { try PostgresDatabase(url: url) }
    }

    /// The directory of `initdb` and `pg_ctl` (the newest installed major version), or `nil`.
    static var binDirectory: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.reversed().map { "\(root)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: "\($0)/pg_ctl") }
    }

    private static func start() throws -> Cluster {
        let instance = try Instance()
        try instance.start()
        return Cluster(port: instance.port)
    }

    /// A PostgreSQL server of a test's own, for tests that start and stop it (a node started
    /// before its database, a database that goes away): initialized on a free loopback port,
    /// not running until `start()`; removed when the test process exits.
    public final class Instance: Sendable {
        public let port: UInt16
        private let bin: String
        private let directory: String
        private let user: String?

        public init() throws {
            guard let bin = TestPostgres.binDirectory else {
                throw Unavailable(description: "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl); scripts/install-deps installs it")
            }
            self.bin = bin
            user = TestDaemon.isRoot ? "postgres" : nil
            directory = try TestDaemon.makeDirectory("srtc-pg", owner: user)
            port = try freeLoopbackPort()
            try TestDaemon.run("\(bin)/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"], as: user)
            let stop = (user.map { "/usr/sbin/runuser -u \($0) -- " } ?? "") + "\(bin)/pg_ctl -D \(directory)/data -m immediate stop"
            try TestDaemon.cleanUpAfterExit("\(stop) 2>/dev/null; rm -rf \(directory)")
        }

        /// The superuser URL of `database` (`postgres` exists from the start).
        public func url(database: String = "postgres") -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

        /// Starts the server and returns once it accepts connections.
        public func start() throws {
            // Durability is not what these tests check: skip fsync for speed.
            let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            try TestDaemon.run("\(bin)/pg_ctl", ["-D", directory + "/data", "-o", options, "-l", directory + "/log", "-w", "-t", "60", "start"], as: user)
        }

        /// Stops the server at once (`-m immediate`: like a crash, no checkpoint).
        public func stop() throws {
            try TestDaemon.run("\(bin)/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"], as: user)
        }
    }
}
