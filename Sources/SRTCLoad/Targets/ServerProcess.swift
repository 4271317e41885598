import Foundation
import Processes
import RTCNet

/// A server this process started (Janus for the interop test and the benchmark, the release
/// `srtc-server` for the benchmark): its pid, its log file, and a stop that waits for it to exit.
package final class ServerProcess: Sendable {
    package let name: String
    private let child: ChildProcess
    /// Where its standard output and error go.
    package let logPath: String

    /// Starts `executable` with `arguments`, output to `logPath`.
    package init(name: String, executable: String, arguments: [String], logPath: String,
                 environment: [String: String]? = nil) throws {
        self.name = name
        self.logPath = logPath
        do {
            child = try ChildProcess(executable, arguments, environment: environment, log: logPath)
        } catch {
            throw LoadError.setup("cannot start \(name): \(error)")
        }
    }

    package var pid: Int32 { child.pid }
    package var isRunning: Bool { child.isRunning }

    /// Waits until `GET url` answers 200, the process exits, or `timeout` passes.
    package func waitUntilReady(url: String, timeout: Duration = .seconds(20)) async throws {
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(2), keepAlive: false))
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard child.isRunning else { throw LoadError.setup("\(name) exited at start; see \(logPath):\n\(logTail())") }
            if let response = try? await client.get(url), response.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LoadError.setup("\(name) did not answer \(url) within \(timeout); see \(logPath)")
    }

    /// SIGTERM, then SIGKILL if it has not exited after `grace`; waits for the exit.
    package func stop(grace: Duration = .seconds(5)) {
        guard child.isRunning else { return }
        child.signal(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while child.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        child.signal(SIGKILL)
        _ = child.waitUntilExit()
    }

    /// The last lines of the log (for error messages).
    package func logTail(lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// A TCP port free on loopback now (the kernel's choice; the caller binds it soon after).
    package static func freePort() throws -> UInt16 {
        do { return try FreePort.find() } catch { throw LoadError.setup("no free port on loopback: \(error)") }
    }
}
