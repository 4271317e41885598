#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RTCNet

@Suite struct HTTPClientTests {
    /// Echoes the method, target, body and the client's port (to see connection reuse).
    struct PortEchoDelegate: HTTPServerDelegate {
        func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
            HTTPResponse(status: 201, headers: [
                "X-Method": request.method, "X-Target": request.target,
                "X-Client-Port": String(request.remoteAddress?.port ?? 0), "X-Auth": request.headers["Authorization"] ?? "",
            ], body: request.body)
        }
        func respond(to request: HTTPRequest) async -> HTTPResponse { .text(500, "unreachable") }
    }

    @Test func getAndPostAgainstOurServerReuseOneConnection() async throws {
        try await withServer(delegate: PortEchoDelegate()) { server in
            let client = HTTPClient()
            let first = try await client.get("http://127.0.0.1:\(server.port)/a?x=1", headers: ["Authorization": "Bearer t"])
            #expect(first.status == 201)
            #expect(first.headers["X-Method"] == "GET")
            #expect(first.headers["X-Target"] == "/a?x=1")
            #expect(first.headers["X-Auth"] == "Bearer t")
            let second = try await client.post("http://127.0.0.1:\(server.port)/b", body: Array("payload".utf8))
            #expect(second.headers["X-Method"] == "POST")
            #expect(second.body == Array("payload".utf8))
            #expect(second.headers["X-Client-Port"] == first.headers["X-Client-Port"])  // same connection
            client.closeIdleConnections()
        }
    }

    @Test func chunkedResponseIsJoined() async throws {
        let server = try CannedServer { _ in
            // chunk "Hello" (5), chunk ", world" (7) with an extension, last chunk, one trailer
            Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n".utf8)
        }
        let response = try await HTTPClient().get("http://127.0.0.1:\(server.port)/")
        #expect(response.status == 200)
        #expect(response.body == Array("Hello, world".utf8))
    }

    @Test func bodyDelimitedByCloseIsRead() async throws {
        let server = try CannedServer { _ in Array("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end".utf8) }
        let response = try await HTTPClient().get("http://127.0.0.1:\(server.port)/")
        #expect(response.body == Array("until the end".utf8))
    }

    @Test func silentServerTimesOut() async throws {
        let server = try CannedServer { _ in nil }
        await #expect(throws: NetError.timeout) {
            _ = try await HTTPClient().get("http://127.0.0.1:\(server.port)/", timeout: .milliseconds(200))
        }
    }

    @Test func refusedConnectionIsASystemError() async throws {
        let port = try freePort()
        await #expect(throws: NetError.system(call: "connect", errno: ECONNREFUSED)) {
            _ = try await HTTPClient().get("http://127.0.0.1:\(port)/")
        }
    }

    @Test func garbageResponseIsAProtocolViolation() async throws {
        let server = try CannedServer { _ in Array("SMTP ready\r\n\r\n".utf8) }
        do {
            _ = try await HTTPClient().get("http://127.0.0.1:\(server.port)/")
            Issue.record("should fail")
        } catch {
            #expect(error == .protocolViolation("malformed status line"))
        }
    }

    @Test(arguments: ["ftp://x/", "http://", "http://host:99999/", "http://[::1/", "nonsense"])
    func invalidURLsAreRefused(_ url: String) async {
        await #expect(throws: NetError.invalidURL(url)) { _ = try await HTTPClient().get(url) }
    }

    @Test func urlPartsAndHostHeader() throws {
        let v6 = try ParsedURL("wss://user@[::1]:8443/rtc?token=a#frag", allowedSchemes: ["wss"])
        #expect(v6.host == "::1")
        #expect(v6.port == 8443)
        #expect(v6.target == "/rtc?token=a")
        #expect(v6.hostHeader == "[::1]:8443")
        let plain = try ParsedURL("HTTP://example.com?q", allowedSchemes: ["http"])
        #expect(plain.port == 80)
        #expect(plain.target == "/?q")
        #expect(plain.hostHeader == "example.com")
    }
}
