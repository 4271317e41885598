#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TestWait

/// One throwaway `redis-server` per test process, started on first use on a free loopback port
/// in a temp directory (no persistence) and stopped when the process exits. Each test takes its
/// own numbered database (`SELECT n`, out of 10000), so tests sharing the server never see each
/// other's keys.
public enum TestRedis {
    /// `redis-server` is not installed (scripts/install-deps installs it).
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    private static let server = Task { try await offPool { try start() } }
    private static let nextDatabase = Atomic<Int>(0)

    /// The URL of a database of the shared server no other test uses.
    public static func freshURL() async throws -> String {
        let port = try await server.value
        return "redis://127.0.0.1:\(port)/\(nextDatabase.add(1, ordering: .relaxed).newValue)"
    }

    private static func start() throws -> UInt16 {
        let instance = try Instance(databases: 10000)
        try instance.start()
        return instance.port
    }

    /// A `redis-server` of a test's own, for tests that stop and restart it under running nodes:
    /// a free loopback port, no persistence (a restart comes back empty, as a Redis without
    /// persistence does), not running until `start()`; killed when the test process exits.
    public final class Instance: Sendable {
        public let port: UInt16
        private let binary: String
        private let directory: String
        private let databases: Int

        public init(databases: Int = 16) throws {
            let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let binary else { throw Unavailable(description: "redis-server is not installed; scripts/install-deps installs it") }
            self.binary = binary
            self.databases = databases
            directory = try TestDaemon.makeDirectory("srtc-redis")
            port = try freeLoopbackPort()
            // SIGKILL: nothing here persists, and a redis-server seen ignoring SIGTERM here outlived the
            // test run for good (holding whatever its parent had open).
            try TestDaemon.cleanUpAfterExit("kill -9 $(cat \(directory)/redis.pid) 2>/dev/null; sleep 1; rm -rf \(directory)")
        }

        public var url: String { "redis://127.0.0.1:\(port)/0" }

        /// Starts the server (daemonized) and returns once it accepts connections.
        public func start() throws {
            try TestDaemon.run(binary, ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--databases", "\(databases)",
                                        "--daemonize", "yes", "--pidfile", directory + "/redis.pid", "--dir", directory, "--logfile", directory + "/log"])
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if Self.accepts(port) { return }
                usleep(20_000)
            }
            throw TestDaemon.Failure(description: "redis-server did not listen on \(port) within 30 s")
        }

        /// Kills the server (`SIGKILL`) and returns once its port is closed.
        public func kill() throws {
            let pid = try String(contentsOfFile: directory + "/redis.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let number = pid_t(pid) else { throw TestDaemon.Failure(description: "no redis pid in \(directory)") }
            Glibc.kill(number, SIGKILL)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, Self.accepts(port) { usleep(20_000) }
            try? FileManager.default.removeItem(atPath: directory + "/redis.pid")
        }

        private static func accepts(_ port: UInt16) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
        }
    }
}
