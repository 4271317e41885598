#if canImport(Glibc)
import Glibc
#endif
#if canImport(CSystem)
import CSystem
#endif
import Foundation

extension ChildProcess {
    /// Starts `argv` (`argv[0]` a path or a name found on PATH) with the given streams (standard
    /// error goes with the output unless given), `environment` (nil: this process's) and working
    /// `directory` (nil: this process's), and returns its pid; reap it with `waitpid` (or start a
    /// `ChildProcess`, which does).
    ///
    /// Not Foundation's `Process`: it missed the exit of `pg_ctl start` (whose daemon outlives
    /// it and holds its output), and a program started while a `Process` was being launched on
    /// another thread kept that process's end of the socket Foundation watches for its exit, so
    /// `waitUntilExit` waited on the zombie forever.
    public static func spawn(_ argv: [String], input: Stream = .null, output: Stream, error: Stream? = nil,
                             environment: [String: String]? = nil, directory: String? = nil) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        func redirect(_ fd: Int32, to stream: Stream, flags: Int32) {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", flags, 0)
            case .inherit: break
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, flags, 0o644)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            case .output: posix_spawn_file_actions_adddup2(&actions, 1, fd)
            }
        }
        redirect(0, to: input, flags: O_RDONLY)
        redirect(1, to: output, flags: O_WRONLY | O_CREAT | O_TRUNC)
        redirect(2, to: error ?? .output, flags: O_WRONLY | O_CREAT | O_TRUNC)
        // Nothing else is inherited: a long-lived child (a daemon, a test's watcher `sh`) must not
        // keep another child's pipe or socket open, or whoever waits for that pipe's end waits on.
        #if os(Linux)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let directory { posix_spawn_file_actions_addchdir_np(&actions, directory) }
        #endif
        // A child inherits the signal mask and ignored signals of the thread that spawns it; a
        // process that blocks or ignores SIGTERM (servers watch it, and ignore SIGPIPE) would
        // otherwise make its child deaf to the `kill` that stops it (seen with redis-server).
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
        guard rc == 0 else { throw Failure(description: "cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Runs `argv` to completion with `input` (if any) on its standard input and returns its exit
    /// status and what it printed (output and error together). Blocks: call it off the
    /// cooperative pool. The output goes through a file, not a pipe, so a daemon the program
    /// leaves running (`pg_ctl start`) cannot keep the read open.
    public static func run(_ argv: [String], input: String? = nil,
                           environment: [String: String]? = nil) throws(Failure) -> (status: Int32, output: String) {
        let log = (NSTemporaryDirectory() as NSString).appendingPathComponent("srtc-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log")
        defer { unlink(log) }
        let inputPipe = input == nil ? nil : try pipe()
        let pid: pid_t
        do {
            pid = try spawn(argv, input: inputPipe.map { .descriptor($0.read) } ?? .null, output: .file(log), environment: environment)
        } catch {
            if let inputPipe { close(inputPipe.read); close(inputPipe.write) }
            throw error
        }
        if let inputPipe, let input {
            close(inputPipe.read)
            let bytes = Array(input.utf8)
            var written = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { Glibc.write(inputPipe.write, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                written += n
            }
            close(inputPipe.write)
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        return (exitStatus(raw), (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}
