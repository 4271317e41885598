import Foundation
import RTCNet

/// Janus (the Debian `janus` package) started for a test or a benchmark, with a configuration
/// written to a temporary directory: the VideoRoom plugin and the HTTP transport only (on a free
/// loopback port), `event_loops = 2` (media handled by two threads, one per core here), log level
/// 2, and ICE-lite, so that Janus, like our server, answers the clients' checks rather than
/// running its own (both sides controlling would be a role conflict for our client stack).
package final class JanusServer: Sendable {
    package let process: ServerProcess
    package let httpPort: UInt16
    package let directory: String
    /// The address its HTTP API and media listen on (loopback's, or a lab namespace's).
    package let host: String

    /// `http://<host>:<port>/janus`.
    package var apiURL: String { "http://\(host):\(httpPort)/janus" }

    /// Whether Janus is installed (`scripts/install-deps` installs it).
    package static var isInstalled: Bool { executable != nil && pluginRoot != nil }

    static var executable: String? {
        ["/usr/bin/janus", "/usr/local/bin/janus", "/opt/janus/bin/janus"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The directory holding `plugins/`, `transports/`, … (Debian puts it under the multiarch path).
    static var pluginRoot: String? {
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []).map { "/usr/lib/\($0)/janus" }
            + ["/usr/lib/janus", "/usr/local/lib/janus", "/opt/janus/lib/janus"]
        return candidates.first { FileManager.default.fileExists(atPath: "\($0)/plugins/libjanus_videoroom.so") }
    }

    /// Where one Janus runs: loopback in this namespace, or a network lab's namespace (`ip netns
    /// exec`) on its address there, with its media on a fixed port range (for the lab's relay).
    package struct Placement: Sendable {
        /// The namespace, nil for this one.
        package var namespace: String?
        /// The address Janus binds its HTTP API to and announces as its only ICE candidate
        /// (`ice_enforce_list`) in a namespace.
        package var host: String
        /// Media ports (`rtp_port_range`), nil for any.
        package var mediaPorts: ClosedRange<UInt16>?

        package init(namespace: String? = nil, host: String = "127.0.0.1", mediaPorts: ClosedRange<UInt16>? = nil) {
            self.namespace = namespace
            self.host = host
            self.mediaPorts = mediaPorts
        }
    }

    /// Writes the configuration and starts Janus; returns once its HTTP API answers.
    /// - Parameter eventLoops: media threads (`event_loops`).
    /// - Parameter placement: where it runs (loopback by default).
    package static func start(eventLoops: Int = 2, logLevel: Int = 2, placement: Placement = Placement()) async throws -> JanusServer {
        guard let executable, let root = pluginRoot else { throw LoadError.janus("not installed (run scripts/install-deps)") }
        let directory = NSTemporaryDirectory() + "srtc-janus-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A fresh namespace has every port free; loopback's free port is free there too.
        let port = try ServerProcess.freePort()
        try writeConfiguration(to: directory, root: root, port: port, eventLoops: eventLoops, logLevel: logLevel, placement: placement)
        let janus = [executable, "-C", "\(directory)/janus.jcfg", "-F", directory, "-o"]
        // `ip netns exec` enters the namespace and execs Janus: the pid is Janus's own.
        let command = placement.namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] + janus } ?? janus
        let process = try ServerProcess(name: "janus", executable: command[0], arguments: Array(command.dropFirst()),
                                        logPath: "\(directory)/janus.log")
        let server = JanusServer(process: process, httpPort: port, directory: directory, host: placement.host)
        do {
            try await process.waitUntilReady(url: "\(server.apiURL)/info")
        } catch {
            process.stop()
            throw error
        }
        return server
    }

    private init(process: ServerProcess, httpPort: UInt16, directory: String, host: String) {
        self.host = host
        self.process = process
        self.httpPort = httpPort
        self.directory = directory
    }

    /// Stops Janus and removes its directory (waits up to seconds for Janus to exit).
    package func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `stop()` from a task: the wait runs on a thread of its own, not the cooperative pool.
    package func shutDown() async {
        await Thread.blockingRun { self.stop() }
    }

    // MARK: - Configuration

    private static func writeConfiguration(to directory: String, root: String, port: UInt16, eventLoops: Int, logLevel: Int,
                                           placement: Placement) throws {
        /// Every library of `folder` but `keep`, for Janus's `disable` lists.
        func others(_ folder: String, keep: String) -> String {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(folder)")) ?? []
            return files.filter { $0.hasSuffix(".so") && $0 != keep }.sorted().joined(separator: ",")
        }
        let core = """
        general: {
            configs_folder = "\(directory)"
            plugins_folder = "\(root)/plugins"
            transports_folder = "\(root)/transports"
            events_folder = "\(root)/events"
            loggers_folder = "\(root)/loggers"
            debug_level = \(logLevel)
            event_loops = \(eventLoops)
            server_name = "srtc-load"
        }
        certificates: {
        }
        media: {
        \(placement.mediaPorts.map { "    rtp_port_range = \"\($0.lowerBound)-\($0.upperBound)\"" } ?? "")
        }
        nat: {
            nice_debug = false
            ice_lite = true
            ice_ignore_list = "vmnet"
        \(placement.namespace == nil ? "" : "    ice_enforce_list = \"\(placement.host)\"")
        }
        plugins: {
            disable = "\(others("plugins", keep: "libjanus_videoroom.so"))"
        }
        transports: {
            disable = "\(others("transports", keep: "libjanus_http.so"))"
        }
        loggers: {
            disable = "\(others("loggers", keep: ""))"
        }
        events: {
            broadcast = false
        }

        """
        let http = """
        general: {
            json = "plain"
            base_path = "/janus"
            http = true
            port = \(port)
            ip = "\(placement.host)"
            https = false
        }
        admin: {
            admin_http = false
        }

        """
        let videoroom = """
        general: {
        }

        """
        try core.write(toFile: "\(directory)/janus.jcfg", atomically: true, encoding: .utf8)
        try http.write(toFile: "\(directory)/janus.transport.http.jcfg", atomically: true, encoding: .utf8)
        try videoroom.write(toFile: "\(directory)/janus.plugin.videoroom.jcfg", atomically: true, encoding: .utf8)
    }
}
