#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCNet
import TestWait

/// A real HAProxy (Debian `haproxy`) in front of a cluster's HTTP ports, as docs/deploy.md
/// configures it: TCP mode, least connections, health checks on `/readyz` every `checkInterval`
/// (a node is out after two failed checks, back after two good ones), a connection to a node that
/// refuses it sent to another. Started on a free loopback port in a temp directory, killed when
/// `stop()` is called or the test process exits.
public final class TestHAProxy: Sendable {
    public let port: UInt16
    public let pid: pid_t
    public let logPath: String

    /// - Parameters:
    ///   - ports: the nodes' HTTP ports on 127.0.0.1.
    ///   - checkInterval: milliseconds between health checks of each node.
    public init(to ports: [UInt16], checkInterval: Int = 250) async throws {
        let binary = ["/usr/sbin/haproxy", "/usr/local/sbin/haproxy"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let binary else { throw TestDaemon.Failure(description: "haproxy is not installed; scripts/install-deps installs it") }
        let directory = try TestDaemon.makeDirectory("srtc-haproxy")
        port = try freeLoopbackPort()
        let servers = ports.enumerated().map { "    server n\($0.offset) 127.0.0.1:\($0.element) check inter \(checkInterval) fall 2 rise 2" }
        let config = """
            global
                maxconn 4096
            defaults
                mode tcp
                timeout connect 1s
                timeout client 1h
                timeout server 1h
                retries 2
                option redispatch
            frontend srtc
                bind 127.0.0.1:\(port)
                default_backend nodes
            backend nodes
                balance leastconn
                option httpchk GET /readyz
                http-check expect status 200
            \(servers.joined(separator: "\n"))
            """
        let file = directory + "/haproxy.cfg"
        try (config + "\n").write(toFile: file, atomically: true, encoding: .utf8)  // HAProxy refuses a last line without LF
        logPath = directory + "/log"
        // -db: stay in the foreground (no daemon), so the pid is HAProxy's own.
        pid = try TestDaemon.start([binary, "-db", "-f", file], output: logPath)
        let url = "http://127.0.0.1:\(port)/healthz"
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(2)))
        let (pid, logPath) = (self.pid, self.logPath)
        try await eventually(timeout: 30, "haproxy forwards to a node; log: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")") {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw TestDaemon.Failure(description: "haproxy exited: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
            }
            return (try? await client.get(url))?.status == 200
        }
    }

    /// The balancer's base URL.
    public var url: String { "http://127.0.0.1:\(port)" }

    public func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
