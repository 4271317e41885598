#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCNet
import Synchronization
import TestWait

/// A cluster node as its own `srtc-server` process (the one this package builds, next to the test
/// binary), with the test app's credentials: what a test needs to send a real `SIGTERM` (drain) or
/// `SIGKILL` (a node dying without a word) to one node.
///
/// The node binds port 0 (HTTP and media) and the ports are read from what it prints: a port
/// picked free beforehand can be taken by another test's socket before the node binds it (a UDP
/// port chosen as a free *TCP* port is not even checked), which made a node exit with "address
/// already in use" under a full parallel run.
public final class TestNodeProcess: Sendable {
    public let pid: pid_t
    public let logPath: String
    private let ports = Mutex<(http: UInt16, udp: UInt16)?>(nil)

    /// Starts the node and returns once its `/healthz` answers.
    /// - Parameter arguments: more flags (`--redis-url`, `--node-id`, …).
    public convenience init(arguments: [String]) async throws {
        try self.init(launching: arguments, binary: Self.serverBinary())
        try await waitUntilHealthy()
    }

    /// Starts the node without waiting for it (nodes started in the same instant); see `waitUntilHealthy`.
    public static func launch(arguments: [String]) throws -> TestNodeProcess {
        try TestNodeProcess(launching: arguments, binary: serverBinary())
    }

    private init(launching arguments: [String], binary: String) throws {
        let directory = try TestDaemon.makeDirectory("srtc-node")
        let output = directory + "/log"
        pid = try TestDaemon.start([binary, "--bind", "127.0.0.1", "--http-port", "0", "--udp-port", "0",
                                    "--data-dir", directory + "/data", "--app-id", TestServer.appId, "--app-key", TestServer.appKey,
                                    "--log-level", "info"] + TestMediaWorkers.flags(unlessIn: arguments) + arguments, output: output)
        logPath = output
    }

    /// The node's HTTP port, as it printed it; waits (up to 60 s) for the line when the node has
    /// not printed it yet (a node just `launch`ed), 0 if it never does.
    public var httpPort: UInt16 { boundPorts()?.http ?? 0 }

    /// The node's UDP media port, as it printed it (see `httpPort`).
    public var udpPort: UInt16 { boundPorts()?.udp ?? 0 }

    private func boundPorts() -> (http: UInt16, udp: UInt16)? {
        if let known = ports.withLock({ $0 }) { return known }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let (http, udp) = ServerProcess.ports(in: log) {
                ports.withLock { $0 = (http, udp) }
                return (http, udp)
            }
            if hasEnded { return nil }
            usleep(20_000)
        }
        return nil
    }

    /// Waits until `/healthz` answers 200 (failing at once if the process exited).
    public func waitUntilHealthy(timeout: Double = 60) async throws {
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(2)))
        try await eventually(timeout: timeout, "srtc-server answers /healthz; log: \(log.suffix(2000))") {
            if let exited = exitStatusIfEnded() { throw TestDaemon.Failure(description: "srtc-server exited (status \(exited)): \(lastWords)") }
            guard let port = ports.withLock({ $0 })?.http ?? ServerProcess.ports(in: log).map({ $0.0 }) else { return false }
            return (try? await client.get("http://127.0.0.1:\(port)/healthz"))?.status == 200
        }
    }

    /// Whether the process is gone or a zombie, without reaping it (`exitStatusIfEnded` reaps).
    private var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // The state follows the command name, which is in parentheses (proc(5)).
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// What a node that exited said last, that line first: a test report that shows only the
    /// first line of an error still shows why ("cannot start: …").
    private var lastWords: String {
        let lines = log.split(separator: "\n")
        return (lines.last.map(String.init) ?? "(no output)") + "\n" + lines.suffix(30).joined(separator: "\n")
    }

    /// The exit status if the process has ended (reaped now), else `nil`.
    public func exitStatusIfEnded() -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? status : nil
    }

    /// A GET on the node; status and body.
    public func get(_ path: String) async throws -> (status: Int, body: String) {
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(5)))
        let response = try await client.get(url + path)
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    public var url: String { "http://127.0.0.1:\(httpPort)" }

    /// The node's output so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` (`SIGTERM`, `SIGKILL`).
    public func send(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the process to end (after a signal); its exit status.
    public func waitForExit() async throws -> Int32 {
        let pid = self.pid
        return try await offPool {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }
    }

    /// `srtc-server` beside the running test binary (both are products of this package).
    private static func serverBinary() throws -> String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // macOS runs tests inside an .xctest bundle: walk up to the products directory.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("srtc-server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw TestDaemon.Failure(description: "no srtc-server next to \(testBinary.path): build it first (swift build --build-tests)")
    }
}
