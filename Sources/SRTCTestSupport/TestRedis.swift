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
        let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let binary else { throw Unavailable(description: "redis-server is not installed; scripts/install-deps installs it") }
        let directory = try TestDaemon.makeDirectory("srtc-redis")
        let port = try freeLoopbackPort()
        let pidFile = directory + "/redis.pid"
        try TestDaemon.run(binary, ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--databases", "10000",
                                    "--daemonize", "yes", "--pidfile", pidFile, "--dir", directory, "--logfile", directory + "/log"])
        // SIGKILL: nothing here persists, and a redis-server seen ignoring SIGTERM here outlived the
        // test run for good (holding whatever its parent had open).
        try TestDaemon.cleanUpAfterExit("kill -9 $(cat \(pidFile)) 2>/dev/null; sleep 1; rm -rf \(directory)")
        // Daemonized: wait until it answers.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            close(fd)
            if rc == 0 { return port }
            usleep(20_000)
        }
        throw TestDaemon.Failure(description: "redis-server did not listen on \(port) within 30 s")
    }
}
