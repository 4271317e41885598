import Foundation
import Processes
import TestWait
import Testing
@testable import RTCNet

/// Finds the `openssl` command line tool; the TLS tests skip when it is missing.
let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// A throwaway directory with a self-signed P-256 certificate for `localhost` (DNS name only) and
/// a file to serve.
struct TLSFixture {
    let directory: URL
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    var key: String { directory.appendingPathComponent("key.pem").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try run(opensslPath!, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                               "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-nodes",
                               "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"], in: directory)
        try Data("hello over TLS\n".utf8).write(to: directory.appendingPathComponent("hello.txt"))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@discardableResult
func run(_ tool: String, _ arguments: [String], in directory: URL) throws -> Int32 {
    try ChildProcess(tool, arguments, directory: directory.path).waitUntilExit()
}

/// `openssl s_server -WWW` serving the fixture directory on a free loopback port.
final class OpenSSLServer {
    let process: ChildProcess
    let port: UInt16

    init(fixture: TLSFixture) async throws {
        // Ask the kernel for a free port, release it, and hand it to s_server.
        port = try freePort()
        process = try ChildProcess(opensslPath!, ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", fixture.certificate,
                                                  "-key", fixture.key, "-WWW", "-quiet"], directory: fixture.directory.path)
        try await eventually("s_server listening on \(port)") { (try? RawClient(port: port, timeout: 0.2)) != nil }
    }

    deinit {
        // s_server ignores SIGTERM while it waits in accept; SIGKILL is certain.
        process.signal(SIGKILL)
        _ = process.waitUntilExit()
    }
}

@Suite(.enabled(if: opensslPath != nil, "needs the openssl command line tool"))
struct TLSTests {
    @Test func httpsGetAgainstOpenSSLServerTrustingItsCertificate() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let server = try await OpenSSLServer(fixture: fixture)
        let client = HTTPClient(configuration: .init(tls: .trusting(caFile: fixture.certificate)))
        let response = try await client.get("https://localhost:\(server.port)/hello.txt")
        #expect(response.status == 200)
        #expect(response.body == Array("hello over TLS\n".utf8))
    }

    @Test func untrustedCertificateIsRejected() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let server = try await OpenSSLServer(fixture: fixture)
        do {
            _ = try await HTTPClient().get("https://localhost:\(server.port)/hello.txt")
            Issue.record("a self-signed certificate must not pass the system trust store")
        } catch {
            guard case .tls(let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(reason.contains("certificate verification failed"))
        }
    }

    @Test func hostNameMismatchIsRejected() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let server = try await OpenSSLServer(fixture: fixture)
        // The certificate names only "localhost"; 127.0.0.1 is not in it.
        let client = HTTPClient(configuration: .init(tls: .trusting(caFile: fixture.certificate)))
        do {
            _ = try await client.get("https://127.0.0.1:\(server.port)/hello.txt")
            Issue.record("the IP address is not in the certificate")
        } catch {
            guard case .tls(let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(reason.contains("verification failed"))
        }
    }

    @Test func verificationCanBeDisabledForTests() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let server = try await OpenSSLServer(fixture: fixture)
        let response = try await HTTPClient(configuration: .init(tls: .insecure)).get("https://127.0.0.1:\(server.port)/hello.txt")
        #expect(response.body == Array("hello over TLS\n".utf8))
    }

    @Test func wssAndHttpsAgainstOurOwnTLSServer() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let configuration = HTTPServerConfiguration(loopCount: 1, tls: .server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.key))
        try await withServer(configuration, delegate: WebSocketEchoDelegate()) { server in
            let trust = TLSConfiguration.trusting(caFile: fixture.certificate)
            let socket = try await WebSocketClient.connect(url: "wss://localhost:\(server.port)/ws", tls: trust, timeout: hangTimeout)
            let big = [UInt8](repeating: 0x5A, count: 200_000)
            socket.send(text: "secure")
            socket.send(binary: big)
            var received: [WebSocketMessage] = []
            for await message in socket.messages {
                received.append(message)
                if received.count == 2 { break }
            }
            #expect(received == [.text("secure"), .binary(big)])
            socket.close()
            #expect(await socket.closed().code == .normalClosure)
            let response = try await HTTPClient(configuration: .init(tls: trust)).get("https://localhost:\(server.port)/anything")
            #expect(response.status == 404)
        }
    }

    @Test func replacedCertificateIsServedToNewConnectionsWhileOpenOnesKeepTheirs() async throws {
        let old = try TLSFixture(), renewed = try TLSFixture()
        defer { old.remove(); renewed.remove() }
        let configuration = HTTPServerConfiguration(loopCount: 1, tls: .server(certificateChainFile: old.certificate, privateKeyFile: old.key))
        try await withServer(configuration, delegate: WebSocketEchoDelegate()) { server in
            // Each fixture is self-signed: a client trusting one of them accepts only that one.
            let trustOld = TLSConfiguration.trusting(caFile: old.certificate), trustNew = TLSConfiguration.trusting(caFile: renewed.certificate)
            let open = try await WebSocketClient.connect(url: "wss://localhost:\(server.port)/ws", tls: trustOld, timeout: hangTimeout)
            await #expect(throws: NetError.self) {
                _ = try await HTTPClient(configuration: .init(tls: trustNew, keepAlive: false)).get("https://localhost:\(server.port)/x")
            }

            try server.replaceTLS(with: .server(certificateChainFile: renewed.certificate, privateKeyFile: renewed.key))
            let fresh = try await HTTPClient(configuration: .init(tls: trustNew, keepAlive: false)).get("https://localhost:\(server.port)/x")
            #expect(fresh.status == 404)
            await #expect(throws: NetError.self) {
                _ = try await HTTPClient(configuration: .init(tls: trustOld, keepAlive: false)).get("https://localhost:\(server.port)/x")
            }
            open.send(text: "still here")
            var echoed: WebSocketMessage?
            for await message in open.messages { echoed = message; break }
            #expect(echoed == .text("still here"))
            open.close()

            // A pair that does not load changes nothing.
            #expect(throws: NetError.tls("private key \(old.key) does not match the certificate \(renewed.certificate)")) {
                try server.replaceTLS(with: .server(certificateChainFile: renewed.certificate, privateKeyFile: old.key))
            }
            #expect(server.currentTLSContext?.configuration.certificateChainFile == renewed.certificate)
            #expect(server.currentTLSContext?.certificateSummary?.subject == "/CN=localhost")
        }
    }

    @Test func aPinnedCertificateIsTrustedAsItIsAtAnAddressItDoesNotName() async throws {
        let fixture = try TLSFixture(), other = try TLSFixture()
        defer { fixture.remove(); other.remove() }
        let configuration = HTTPServerConfiguration(loopCount: 1, tls: .server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.key))
        try await withServer(configuration, delegate: WebSocketEchoDelegate()) { server in
            // The certificate names only "localhost"; pinned, 127.0.0.1 is accepted.
            let pinned = TLSConfiguration(verification: .pinned(certificateFile: fixture.certificate))
            let response = try await HTTPClient(configuration: .init(tls: pinned)).get("https://127.0.0.1:\(server.port)/x")
            #expect(response.status == 404)
            // Pinned to another certificate: refused.
            let wrong = TLSConfiguration(verification: .pinned(certificateFile: other.certificate))
            await #expect(throws: NetError.self) { _ = try await HTTPClient(configuration: .init(tls: wrong)).get("https://127.0.0.1:\(server.port)/x") }
        }
    }

    @Test func aPlainServerDoesNotTakeACertificateAtRunTime() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        try await withServer(HTTPServerConfiguration(loopCount: 1), delegate: WebSocketEchoDelegate()) { server in
            #expect(throws: NetError.self) {
                try server.replaceTLS(with: .server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.key))
            }
            #expect(server.currentTLSContext == nil)
        }
    }
}
