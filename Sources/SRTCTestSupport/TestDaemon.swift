#if canImport(Glibc)
import Glibc
#endif
#if canImport(CSystem)
import CSystem
#endif
import Foundation

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
    /// a non-zero exit. Blocks: call it through `onThread`. Spawned and reaped here with
    /// `posix_spawn`/`waitpid`: Foundation's `Process` missed the exit of `pg_ctl start` (whose
    /// daemon outlives it) and waited forever.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], as user: String? = nil) throws -> String {
        let argv = (user.map { isRoot ? ["/usr/sbin/runuser", "-u", $0, "--"] : [] } ?? []) + [tool] + arguments
        let log = (NSTemporaryDirectory() as NSString).appendingPathComponent("srtc-tool-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log")
        defer { unlink(log) }
        let pid = try spawn(argv, output: .file(log))
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS are macros: status is (code << 8) for a normal exit.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(description: "\((tool as NSString).lastPathComponent) failed (wait status \(status)): \(text.suffix(2000))")
        }
        return text
    }

    /// Runs the shell `commands` once this test process has exited (normally or killed), so a
    /// daemon started for the tests never outlives them. The watcher is a detached `sh` with no
    /// inherited output, so it holds no pipe of `swift test` open.
    public static func cleanUpAfterExit(_ commands: String) throws {
        _ = try spawn(["/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(commands)"], output: .null)
    }

    /// Starts `argv` (a long-running process the caller stops) with its output in `output`; it is
    /// killed (-9) once this test process exits, if still running.
    public static func start(_ argv: [String], output: String) throws -> pid_t {
        let pid = try spawn(argv, output: .file(output))
        try cleanUpAfterExit("kill -9 \(pid) 2>/dev/null")
        return pid
    }

    /// Where a spawned program's standard stream goes.
    public enum Stream {
        case null
        /// A file, created or truncated.
        case file(String)
        /// An open descriptor of this process (a pipe end).
        case descriptor(Int32)
    }

    /// Starts `argv` (`argv[0]` a path or a name found on PATH) with the given streams (standard
    /// error goes with the output unless given) and `environment` (nil: this process's), and
    /// returns its pid; reap it with `waitpid`.
    public static func spawn(_ argv: [String], input: Stream = .null, output: Stream, error: Stream? = nil,
                             environment: [String: String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        func redirect(_ fd: Int32, to stream: Stream, flags: Int32) {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", flags, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, flags, 0o644)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            }
        }
        redirect(0, to: input, flags: O_RDONLY)
        redirect(1, to: output, flags: O_WRONLY | O_CREAT | O_TRUNC)
        if let error { redirect(2, to: error, flags: O_WRONLY | O_CREAT | O_TRUNC) } else { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        // Nothing else is inherited. A daemon (or a watcher `sh`, alive until the test process
        // ends) started while a Foundation `Process` was being launched on another thread kept that
        // process's end of the socket Foundation watches for its exit: the exit was never seen, and
        // `waitUntilExit` waited on the zombie forever (the OpenSSL exit test's child, held by the
        // Xvfb watcher spawned the same millisecond, stopped a whole `make test`).
        #if os(Linux)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        #endif
        // A child inherits the signal mask and ignored signals of the thread that spawns it; a test
        // process that blocks or ignores SIGTERM (servers under test watch it) would otherwise make
        // a daemon deaf to the `kill` that stops it, and it outlived the run (seen with redis-server).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), every = sigset_t()
        sigemptyset(&none)
        sigfillset(&every)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let cEnv = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { cEnv?.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = cEnv.map { posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, $0) }
            ?? posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, environ)
        guard rc == 0 else { throw Failure(description: "cannot start \(argv[0]): errno \(rc)") }
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
