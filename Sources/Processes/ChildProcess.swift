#if canImport(Glibc)
import Glibc
#endif
#if canImport(CSystem)
import CSystem
#endif
import Foundation
import Synchronization

/// A program this process starts and reaps: the server's egress workers, the load generator's
/// servers, and every daemon and tool the tests run. The one way this project spawns a process
/// (`posix_spawn` and `waitpid`, not Foundation's `Process`, see `spawn`): optionally with a pipe
/// to its standard input or from its standard output; stopped with SIGTERM (SIGKILL if it
/// lingers); its exit waited for off the cooperative pool (`waitForExit`) or on a thread of the
/// caller's (`waitUntilExit`).
public final class ChildProcess: Sendable {
    /// A program could not be started, or one run to completion failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Where a spawned program's standard stream goes.
    public enum Stream: Sendable {
        case null
        /// This process's own descriptor of the same number.
        case inherit
        /// A file, created or truncated.
        case file(String)
        /// An open descriptor of this process (a pipe end).
        case descriptor(Int32)
        /// Standard error only: wherever the standard output goes.
        case output
    }

    public let pid: pid_t
    /// The read end of the program's standard output, when `pipeOutput` was set.
    public let output: FileHandle?
    /// The write end of its standard input, when `pipeInput` was set.
    public let input: FileHandle?
    /// The exit status once reaped (128 + signal for a killed program).
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` (a name on PATH or a path) with `arguments` and `environment` (nil:
    /// this process's), in `directory` (nil: this process's). Its output goes into a pipe
    /// (`output`) when `pipeOutput` is set, else to `standardOutput` if given, else to `log`, or
    /// nowhere. Its standard error goes to `standardError` if given (`.output`: wherever the
    /// output goes), else to `log`, or nowhere.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                pipeInput: Bool = false, pipeOutput: Bool = false, log: String? = nil, standardOutput: Stream? = nil,
                standardError: Stream? = nil, directory: String? = nil) throws(Failure) {
        let inputPipe = pipeInput ? try Self.pipe() : nil
        let outputPipe = pipeOutput ? try Self.pipe() : nil
        defer {
            if let inputPipe { close(inputPipe.read) }
            if let outputPipe { close(outputPipe.write) }
        }
        let logStream = log.map(Stream.file) ?? .null
        do {
            pid = try Self.spawn([executable] + arguments, input: inputPipe.map { .descriptor($0.read) } ?? .null,
                                 output: outputPipe.map { .descriptor($0.write) } ?? standardOutput ?? logStream,
                                 error: standardError ?? (pipeOutput || standardOutput != nil ? logStream : .output),
                                 environment: environment, directory: directory)
        } catch {
            if let inputPipe { close(inputPipe.write) }
            if let outputPipe { close(outputPipe.read) }
            throw error
        }
        input = inputPipe.map { FileHandle(fileDescriptor: $0.write, closeOnDealloc: true) }
        output = outputPipe.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) }
    }

    /// A pipe whose ends are not inherited by other children (the spawned one gets its end by dup2).
    static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// The exit status of a `waitpid` status word: the code of a normal exit, 128 + the signal
    /// otherwise (WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import).
    static func exitStatus(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// Reaps the program if it has exited; its status, or nil while it runs.
    private func reap() -> Int32? {
        status.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            known = Self.exitStatus(raw)
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

    /// Blocks the calling thread until the program exits; its status (-1 if someone outside this
    /// type reaped it). For a thread of the caller's own, such as one reading the program's output.
    public func waitUntilExit() -> Int32 {
        while true {
            if let code = reap() { return code }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, 0)
            if result == pid {
                return status.withLock { known in
                    if known == nil { known = Self.exitStatus(raw) }
                    return known!
                }
            }
            if result < 0 && errno == EINTR { continue }
            // ECHILD: `reap` got it first (and stored it under the lock we take next), or nobody can.
            return status.withLock { $0 } ?? -1
        }
    }

    /// Sends `signal` if the program still runs.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
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
