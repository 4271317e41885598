#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Processes
import RTCCrypto
import TestWait

/// A throwaway coturn (`turnserver`, Debian `coturn`) on a free loopback port with shared-secret
/// ("TURN REST") credentials, relaying from 127.0.0.1 on a known port range and allowing
/// loopback peers, for tests of TURN clients; `--verbose`, so its log names each request and
/// user. Or on another address in a network lab's namespace (`address`, `namespace`), relaying
/// from that address. Stopped with `stop()`.
public final class TestCoturn: Sendable {
    /// `turnserver` is not installed (scripts/install-deps installs `coturn`).
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public let port: UInt16
    /// Where it listens and relays from.
    public let address: String
    public let secret = "srtc-test-turn-secret"
    /// The ports coturn relays from: a peer sees a relayed client on one of these.
    public let relayPorts: ClosedRange<UInt16>
    public let logPath: String
    private let process: ChildProcess
    private let directory: String

    public init(address: String = "127.0.0.1", namespace: String? = nil) async throws {
        let binary = ["/usr/bin/turnserver", "/usr/local/bin/turnserver"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let binary else { throw Unavailable(description: "turnserver is not installed; scripts/install-deps installs coturn") }
        directory = try TestDaemon.makeDirectory("srtc-coturn")
        port = try freeLoopbackPort()
        let low = UInt16(40_000 + Int(port) % 20_000)
        relayPorts = low...(low + 40)
        logPath = directory + "/turn.log"
        self.address = address
        let inNamespace = namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? []
        let command = inNamespace + [binary, "-n", "--listening-ip=\(address)", "--relay-ip=\(address)", "--listening-port=\(port)",
                                     "--min-port=\(relayPorts.lowerBound)", "--max-port=\(relayPorts.upperBound)",
                                     "--use-auth-secret", "--static-auth-secret=\(secret)", "--realm=srtc.test",
                                     "--allow-loopback-peers", "--no-cli", "--no-tls", "--no-dtls", "--fingerprint",
                                     "--log-file=\(logPath)", "--simple-log", "--verbose", "--pidfile=\(directory)/turn.pid"]
        process = try ChildProcess(command[0], Array(command.dropFirst()))
        let port = self.port
        try await eventually(timeout: 20, "coturn listening on \(address):\(port)") { Self.listening(address, port) }
    }

    /// Credentials as srtc-server hands them out: `<expiry>:<uid>` and base64(HMAC-SHA1(secret, username)).
    public func credentials(uid: String) -> (username: String, password: String) {
        let username = "\(Int(Date().timeIntervalSince1970) + 3600):\(uid)"
        let mac = Digest.hmacSHA1(key: Array(secret.utf8), message: Array(username.utf8))
        return (username, Data(mac).base64EncodedString())
    }

    /// coturn's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func listening(_ ip: String, _ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(ip)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
