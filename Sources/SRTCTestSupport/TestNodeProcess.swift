#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCNet
import TestWait

/// A cluster node as its own `srtc-server` process (the one this package builds, next to the test
/// binary), on free loopback ports with the test app's credentials: what a test needs to send a
/// real `SIGTERM` (drain) or `SIGKILL` (a node dying without a word) to one node.
public final class TestNodeProcess: Sendable {
    public let pid: pid_t
    public let httpPort: UInt16
    public let logPath: String

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
        let port = try freeLoopbackPort()
        // Several workers need consecutive ports: a free one is not enough, so they pick their own.
        let udpPort = TestMediaWorkers.count > 1 ? 0 : try freeLoopbackPort()
        let output = directory + "/log"
        pid = try TestDaemon.start([binary, "--bind", "127.0.0.1", "--http-port", "\(port)", "--udp-port", "\(udpPort)",
                                    "--data-dir", directory + "/data", "--app-id", TestServer.appId, "--app-key", TestServer.appKey,
                                    "--log-level", "info"] + TestMediaWorkers.flags(unlessIn: arguments) + arguments, output: output)
        httpPort = port
        logPath = output
    }

    /// Waits until `/healthz` answers 200 (failing at once if the process exited).
    public func waitUntilHealthy(timeout: Double = 60) async throws {
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(2)))
        let url = "http://127.0.0.1:\(httpPort)/healthz"
        try await eventually(timeout: timeout, "srtc-server answers /healthz; log: \(log.suffix(2000))") {
            if let exited = exitStatusIfEnded() { throw TestDaemon.Failure(description: "srtc-server exited (status \(exited)): \(log.suffix(2000))") }
            return (try? await client.get(url))?.status == 200
        }
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
