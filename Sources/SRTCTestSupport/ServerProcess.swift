import Foundation
import Processes
import TestWait
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real `srtc-server` process started by a test (the built binary, not an in-process server):
/// for what only a process shows — `kill -9`, descriptor limits, its own RSS and threads.
///
/// It listens on free loopback ports (the ports it prints are read back) with its state in
/// `dataDir`; `start()` may be called again after `kill()` to restart it on the same data.
// @unchecked Sendable: the process and its ports are changed only by start(), stop() and kill(), called by one test task; other tasks read the ports only after start() returned.
public final class ServerProcess: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let dataDir: String
    private let arguments: [String]
    private let environment: [String: String]
    private let openFileLimit: (soft: Int, hard: Int)?
    /// The network namespace it runs in (`NetworkLab`), nil for this one.
    private let namespace: String?
    /// The address it binds and clients reach it on.
    public let host: String
    private var process: ChildProcess?
    /// What the process printed; a class so the pipe's handler can hold it.
    private final class Output: Sendable {
        let text = Mutex("")
        /// Ends of output seen (the pipe's handler gets empty data at its end), one per start.
        let ends = Mutex(0)
    }
    private let printed = Output()
    /// The HTTP and UDP ports of the running process.
    public private(set) var httpPort: UInt16 = 0
    public private(set) var udpPort: UInt16 = 0
    /// The credentials of the app the first start created (printed once), if it created one.
    public private(set) var createdApp: (appId: String, appKey: String)?

    /// - Parameters:
    ///   - dataDir: the state directory (a fresh temporary one by default).
    ///   - arguments: extra flags.
    ///   - environment: extra variables (`SRTC_APP_ID`...).
    ///   - openFileLimit: start the process under these RLIMIT_NOFILE soft and hard limits.
    ///   - namespace: run it in this network namespace (`ip netns exec`), bound to `host`.
    ///   - host: the address to bind (loopback by default).
    public init(dataDir: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
                openFileLimit: (soft: Int, hard: Int)? = nil, namespace: String? = nil, host: String = "127.0.0.1") {
        self.namespace = namespace
        self.host = host
        self.dataDir = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("srtc-process-\(UUID().uuidString)").path
        self.arguments = arguments
        self.environment = environment
        self.openFileLimit = openFileLimit
    }

    /// A test that failed half way still ends its server (and so, by their parent-death signal, its
    /// egress workers).
    deinit {
        process?.signal(SIGKILL)
    }

    /// The built `srtc-server`.
    public static var binaryPath: String { builtBinary("srtc-server") }

    /// A built product of this package: `$SRTC_BIN_DIR/<name>`, else next to the running test
    /// binary, else the package's `.build/debug`.
    public static func builtBinary(_ name: String) -> String {
        var candidates: [String] = []
        if let dir = ProcessInfo.processInfo.environment["SRTC_BIN_DIR"] { candidates.append(dir + "/" + name) }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        // Inside an .xctest bundle the binary sits a few levels down.
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent(name).path)
            dir = dir.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/" + name).path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }

    /// The process id while running.
    public var pid: Int32? { process?.isRunning == true ? process?.pid : nil }
    public var isRunning: Bool { process?.isRunning ?? false }
    public var httpBase: String { "http://\(host):\(httpPort)" }
    public var wsURL: String { "ws://\(host):\(httpPort)/rtc/v1/ws" }
    /// Everything the process printed (stdout and stderr), across restarts.
    public var log: String { printed.text.withLock { $0 } }

    /// Starts the process and waits until it prints its ports.
    public func start(timeout: Double = 30) async throws {
        let binary = Self.binaryPath
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Failure(description: "\(binary) is missing: build first") }
        var executable = binary
        var args = ["--http-port", "0", "--udp-port", "0", "--bind", host, "--data-dir", dataDir, "--web-dir", ""]
            + TestMediaWorkers.flags(unlessIn: arguments) + arguments
        if let namespace {
            executable = "/usr/sbin/ip"
            args = ["netns", "exec", namespace, binary] + args
        } else if let limit = openFileLimit {
            executable = "/bin/sh"
            args = ["-c", "ulimit -S -n \(limit.soft) && ulimit -H -n \(limit.hard) && exec \"$0\" \"$@\"", binary] + args
        }
        let mark = printed.text.withLock { $0.utf8.count }
        let endsBefore = printed.ends.withLock { $0 }
        let process = try ChildProcess(executable, args, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                       pipeOutput: true, standardError: .output)
        process.output?.readabilityHandler = { [printed] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                printed.ends.withLock { $0 += 1 }
            } else {
                printed.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        self.process = process
        // Started when it prints its ports; a server that exits first fails at once.
        let started: (http: UInt16, udp: UInt16, text: String)
        do {
            started = try await waitFor(timeout: timeout, "srtc-server's ports", poll: .milliseconds(20)) {
                let text = String(log.utf8.dropFirst(mark)) ?? ""
                if let (http, udp) = Self.ports(in: text) { return (http, udp, text) }
                if !process.isRunning {
                    // The exit can overtake the pipe's last bytes (its handler runs on a queue of
                    // its own): the reason a server gives for refusing to start comes last, so wait
                    // for the output's end before reading it.
                    let status = process.waitUntilExit()
                    _ = try? await waitFor(timeout: 2, "srtc-server's output to end", poll: .milliseconds(10)) {
                        printed.ends.withLock { $0 } > endsBefore ? true : nil
                    }
                    throw Failure(description: "srtc-server exited (\(status)):\n\(String(log.utf8.dropFirst(mark)) ?? "")")
                }
                return nil
            }
        } catch is WaitTimeout {
            throw Failure(description: "srtc-server did not start within \(timeout) s:\n\(log)")
        }
        httpPort = started.http
        udpPort = started.udp
        if createdApp == nil, let app = Self.credentials(in: started.text) { createdApp = app }
    }

    /// SIGKILL: no shutdown code runs, as in a crash or an OOM kill.
    public func kill() async {
        guard let process, process.isRunning else { return }
        process.signal(SIGKILL)
        await waitForExit(process)
    }

    /// SIGTERM and wait: the graceful shutdown.
    public func stop() async {
        guard let process, process.isRunning else { return }
        process.signal(SIGTERM)
        await waitForExit(process)
    }

    /// Sends `sig` (SIGSTOP to freeze it, SIGTERM, SIGKILL...) without waiting.
    public func signal(_ sig: Int32) {
        process?.signal(sig)
    }

    /// Waits until the process has exited (after `signal`).
    public func waitForExit() async {
        if let process { await waitForExit(process) }
    }

    private func waitForExit(_ process: ChildProcess) async {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// A signed server-API call to this process, as app `appId` (the test app by default: pass
    /// `--app-id`/`--app-key` of `TestServer` in `arguments`).
    public func call(_ path: String, _ body: [String: Any], appId: String = TestServer.appId,
                     appKey: String = TestServer.appKey) async throws -> (Int, [String: Any]) {
        try await SignedCall.post(httpBase, path, body, appId: appId, appKey: appKey)
    }

    /// Removes the data directory (after `kill` or `stop`).
    public func removeData() { try? FileManager.default.removeItem(atPath: dataDir) }

    /// Resource use of the running process, from /proc.
    public var stats: ProcessStats? { pid.flatMap(ProcessStats.init(pid:)) }

    // MARK: - Reading the banner

    /// `srtc-server listening on http://127.0.0.1:PORT (HTTP) and udp 127.0.0.1:PORT (media)`.
    static func ports(in text: String) -> (UInt16, UInt16)? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("srtc-server listening on") }) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber && $0 != ":" }).compactMap { part -> UInt16? in
            guard let colon = part.lastIndex(of: ":") else { return nil }
            return UInt16(part[part.index(after: colon)...])
        }
        guard numbers.count >= 2 else { return nil }
        return (numbers[0], numbers[1])
    }

    static func credentials(in text: String) -> (String, String)? {
        func value(_ key: String) -> String? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key) }
                .map { String($0.split(separator: " ").last ?? "") }
        }
        guard let id = value("app_id:"), let key = value("app_key:") else { return nil }
        return (id, key)
    }
}

/// A process's resource use, read from /proc/<pid>.
public struct ProcessStats: Sendable, Equatable {
    /// Resident set size, bytes.
    public var rssBytes: Int
    /// Open file descriptors.
    public var descriptors: Int
    public var threads: Int
    /// User plus system CPU time, seconds.
    public var cpuSeconds: Double

    public init?(pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) } }
        }
        guard let rssKB = field("VmRSS"), let threads = field("Threads") else { return nil }
        // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let rest = stat[stat.index(after: close)...].split(separator: " ")
        guard rest.count > 13, let utime = Double(rest[11]), let stime = Double(rest[12]) else { return nil }
        rssBytes = rssKB * 1024
        self.threads = threads
        cpuSeconds = (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
        descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
