#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Processes

/// What tests need to run real daemons (PostgreSQL, Redis): tools run to completion (through
/// `onThread`, off the cooperative pool), and clean-up that happens even when the test process is
/// killed.
public enum TestDaemon {
    /// A daemon or tool could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether this process runs as root (daemons that refuse root then run as their own user).
    public static var isRoot: Bool { getuid() == 0 }

    /// Runs `tool` to completion (as `user` through runuser when root); throws with its output on
    /// a non-zero exit. Blocks: call it through `onThread`.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], as user: String? = nil) throws -> String {
        let argv = (user.map { isRoot ? ["/usr/sbin/runuser", "-u", $0, "--"] : [] } ?? []) + [tool] + arguments
        let (status, text) = try ChildProcess.run(argv)
        guard status == 0 else {
            throw Failure(description: "\((tool as NSString).lastPathComponent) failed (exit status \(status)): \(text.suffix(2000))")
        }
        return text
    }

    /// Runs the shell `commands` once this test process has exited (normally or killed), so a
    /// daemon started for the tests never outlives them. The watcher is a detached `sh` with no
    /// inherited output, so it holds no pipe of `swift test` open.
    public static func cleanUpAfterExit(_ commands: String) throws {
        _ = try ChildProcess.spawn(["/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(commands)"], output: .null)
    }

    /// Starts `argv` (a long-running process the caller stops) with its output in `output`; it is
    /// killed (-9) once this test process exits, if still running.
    public static func start(_ argv: [String], output: String) throws -> pid_t {
        let pid = try ChildProcess.spawn(argv, output: .file(output))
        try cleanUpAfterExit("kill -9 \(pid) 2>/dev/null")
        return pid
    }

    /// A fresh directory under the temp directory, owned by `user` when root.
    public static func makeDirectory(_ prefix: String, owner user: String? = nil) throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if let user, isRoot {
            guard let entry = getpwnam(user) else { throw Failure(description: "no OS user '\(user)'") }
            guard chown(path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else { throw Failure(description: "chown \(path) failed") }
        }
        return path
    }
}
