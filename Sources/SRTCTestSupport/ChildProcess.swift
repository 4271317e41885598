#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A long-running helper program a test starts and stops (a daemon, a recorder, a player):
/// spawned through `TestDaemon.spawn`, optionally with a pipe to its standard input or from its
/// standard output, waited for off the cooperative pool, stopped with SIGTERM (SIGKILL if it
/// lingers). Programs run to completion go through `TestDaemon.run`.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The read end of the program's standard output, when `pipeOutput` was set.
    public let output: FileHandle?
    /// The write end of its standard input, when `pipeInput` was set.
    public let input: FileHandle?
    /// The exit status once reaped (128 + signal for a killed program).
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` (a name on PATH or a path) with `arguments`; its standard error (and
    /// output, unless piped) goes to `log`, or nowhere.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                pipeInput: Bool = false, pipeOutput: Bool = false, log: String? = nil) throws {
        let inputPipe = pipeInput ? try Self.pipe() : nil
        let outputPipe = pipeOutput ? try Self.pipe() : nil
        defer {
            if let inputPipe { close(inputPipe.read) }
            if let outputPipe { close(outputPipe.write) }
        }
        let logStream = log.map(TestDaemon.Stream.file) ?? .null
        do {
            pid = try TestDaemon.spawn([executable] + arguments, input: inputPipe.map { .descriptor($0.read) } ?? .null,
                                       output: outputPipe.map { .descriptor($0.write) } ?? logStream, error: logStream,
                                       environment: environment)
        } catch {
            if let inputPipe { close(inputPipe.write) }
            if let outputPipe { close(outputPipe.read) }
            throw error
        }
        input = inputPipe.map { FileHandle(fileDescriptor: $0.write, closeOnDealloc: true) }
        output = outputPipe.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) }
    }

    /// A pipe whose ends are not inherited by other children (the spawned one gets its end by dup2).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw TestDaemon.Failure(description: "pipe: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Reaps the program if it has exited; its status, or nil while it runs.
    private func reap() -> Int32? {
        status.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros: (code << 8) for an exit, the signal otherwise.
            known = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            return known
        }
    }

    /// Whether the program still runs.
    public var isRunning: Bool { reap() == nil }

    /// Waits for the program to exit; returns its status (-1 after `timeout` seconds).
    @discardableResult
    public func waitForExit(timeout: Double = 10) async -> Int32 {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let code = reap() { return code }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return reap() ?? -1
    }

    /// Sends SIGTERM and waits (SIGKILL after `timeout`).
    public func stop(timeout: Double = 5) async {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if await waitForExit(timeout: timeout) == -1 {
            kill(pid, SIGKILL)
            await waitForExit(timeout: timeout)
        }
    }
}
