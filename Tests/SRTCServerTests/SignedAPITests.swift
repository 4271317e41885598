import Foundation
import Testing
import RTCNet
import SRTCProtocol
@testable import SRTCServer

/// Every rejection cause of docs/server-api.md, through the router with a fixed clock.
@Suite struct SignedAPITests {
    static let now: Int64 = 1_800_000_000
    let server: ServerApp

    init() throws {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.appId = "app_test"
        config.appKey = "key_test_0123456789"
        server = try ServerApp(config: config, clock: { SignedAPITests.now })
    }

    func signed(_ method: String = "POST", _ target: String = "/server/v1/channel/grant", body: String = #"{"channel":"c1","uid":"u1"}"#,
                appId: String = "app_test", key: String = "key_test_0123456789", timestamp: Int64 = now, nonce: String? = nil,
                mutate: (inout HTTPHeaders) -> Void = { _ in }) -> HTTPRequest {
        var headers = HTTPHeaders()
        for (k, v) in RequestSignature.headers(appId: appId, appKey: key, method: method, pathAndQuery: target,
                                               body: Array(body.utf8), timestamp: timestamp, nonce: nonce ?? UUID().uuidString) {
            headers.add(name: k, value: v)
        }
        mutate(&headers)
        return HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    func errorBody(_ response: HTTPResponse) throws -> APIErrorBody {
        try JSONDecoder().decode(APIErrorBody.self, from: Data(response.body))
    }

    @Test func validGrantReturnsAVerifiableToken() async throws {
        let response = await server.router.handle(signed())
        #expect(response.status == 200)
        struct Grant: Decodable { var token: String; var expire_at: Int64 }
        let grant = try JSONDecoder().decode(Grant.self, from: Data(response.body))
        #expect(grant.expire_at == Self.now + 3600)
        let claims = try AccessToken.verify(grant.token, now: Self.now) { $0 == "app_test" ? "key_test_0123456789" : nil }
        #expect(claims.sub == "u1")
        #expect(claims.grant == ChannelGrant(channel: "c1"))
    }

    @Test(arguments: ["app_id", "nonce", "timestamp", "signature"])
    func missingHeaderIsRefused(_ header: String) async throws {
        let response = await server.router.handle(signed { $0.remove(name: header) })
        #expect(response.status == 401)
        #expect(try errorBody(response).code == APIErrorCode.missingAuthHeader.rawValue)
        #expect(try errorBody(response).server_time == Self.now)
    }

    @Test func unknownAppIsRefused() async throws {
        let response = await server.router.handle(signed(appId: "app_other"))
        #expect(try errorBody(response).code == APIErrorCode.unknownApp.rawValue)
    }

    @Test(arguments: [Int64(301), -301, 100_000])
    func timestampOutsideTheWindowIsRefused(_ offset: Int64) async throws {
        let response = await server.router.handle(signed(timestamp: Self.now + offset))
        #expect(try errorBody(response).code == APIErrorCode.timestampOutOfWindow.rawValue)
    }

    @Test(arguments: [Int64(300), -300, 0])
    func timestampInsideTheWindowIsAccepted(_ offset: Int64) async {
        #expect(await server.router.handle(signed(timestamp: Self.now + offset)).status == 200)
    }

    @Test func replayedNonceIsRefusedAndTheServerKeepsServing() async throws {
        let first = signed(nonce: "fixed-nonce-1")
        #expect(await server.router.handle(first).status == 200)
        let again = await server.router.handle(first)
        #expect(try errorBody(again).code == APIErrorCode.nonceReplayed.rawValue)
        #expect(await server.router.handle(signed()).status == 200)
    }

    @Test func signatureDifferingInItsLastHexDigitIsRefused() async throws {
        let request = signed { headers in
            let sig = headers["signature"]!
            headers.replaceOrAdd(name: "signature", value: String(sig.dropLast()) + (sig.last == "0" ? "1" : "0"))
        }
        #expect(try errorBody(await server.router.handle(request)).code == APIErrorCode.badSignature.rawValue)
    }

    @Test func tamperedBodyIsRefused() async throws {
        var request = signed()
        request.body = Array(#"{"channel":"c1","uid":"admin"}"#.utf8)
        #expect(try errorBody(await server.router.handle(request)).code == APIErrorCode.badSignature.rawValue)
    }

    @Test func wrongKeyIsRefused() async throws {
        #expect(try errorBody(await server.router.handle(signed(key: "not-the-key"))).code == APIErrorCode.badSignature.rawValue)
    }

    @Test func tamperedQueryIsRefused() async throws {
        var request = signed("GET", "/server/v1/channel/list?page=1", body: "")
        request.target = "/server/v1/channel/list?page=2"
        #expect(try errorBody(await server.router.handle(request)).code == APIErrorCode.badSignature.rawValue)
    }

    @Test(arguments: [
        ("", APIErrorCode.malformedBody), ("not json", .malformedBody), ("[]", .malformedBody), (#"{"uid":"u"}"#, .malformedBody),
        (#"{"channel":1,"uid":"u"}"#, .malformedBody), (#"{"channel":"bad channel","uid":"u"}"#, .invalidParameter),
        (#"{"channel":"c","uid":""}"#, .invalidParameter), (#"{"channel":"c","uid":"u","expire_seconds":10}"#, .invalidParameter),
        (#"{"channel":"c","uid":"u","expire_seconds":99999999}"#, .invalidParameter),
    ])
    func malformedGrantBodiesGetTheirCodes(body: String, code: APIErrorCode) async throws {
        let response = await server.router.handle(signed(body: body))
        #expect(try errorBody(response).code == code.rawValue)
        #expect(response.status == code.httpStatus)
    }

    @Test func permissionsAndExpiryAreCarriedIntoTheToken() async throws {
        let body = #"{"channel":"c","uid":"u","expire_seconds":120,"permissions":{"publish":false,"publish_data":false}}"#
        let response = await server.router.handle(signed(body: body))
        struct Grant: Decodable { var token: String; var expire_at: Int64 }
        let grant = try JSONDecoder().decode(Grant.self, from: Data(response.body))
        let claims = try AccessToken.decodeUnverified(grant.token)
        #expect(claims.exp == Self.now + 120)
        #expect(claims.grant == ChannelGrant(channel: "c", publish: false, subscribe: true, publishData: false))
    }

    @Test func memberGrantCarriesNickname() async throws {
        let response = await server.router.handle(signed("POST", "/stm/srvapi/v1/member/grant", body: #"{"uid":"m1","nickname":"李雷"}"#))
        #expect(response.status == 200)
        struct Grant: Decodable { var token: String }
        let claims = try AccessToken.decodeUnverified(try JSONDecoder().decode(Grant.self, from: Data(response.body)).token)
        #expect(claims.member == MemberGrant(nickname: "李雷"))
        #expect(claims.grant == nil)
    }

    @Test func unknownSignedRouteNeedsAuthBeforeNotFound() async throws {
        let unsigned = HTTPRequest(method: "GET", target: "/server/v1/nothing")
        #expect(try errorBody(await server.router.handle(unsigned)).code == APIErrorCode.missingAuthHeader.rawValue)
        let signedMissing = await server.router.handle(signed("GET", "/server/v1/nothing", body: ""))
        #expect(try errorBody(signedMissing).code == APIErrorCode.notFound.rawValue)
    }

    @Test func wrongMethodIsRefusedWithAllow() async throws {
        let response = await server.router.handle(signed("GET", "/server/v1/channel/grant", body: ""))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST")
    }

    @Test func errorsNeverContainTheKey() async throws {
        for request in [signed(key: "x"), signed(timestamp: 0), signed(body: "{")] {
            let text = String(decoding: await server.router.handle(request).body, as: UTF8.self)
            #expect(!text.contains("key_test_0123456789"))
        }
    }

    @Test func grantsAndErrorsAreAnsweredOnTheIOThreadPath() throws {
        let ok = try #require(server.router.handleImmediately(signed()))
        #expect(ok.status == 200)
        let refused = try #require(server.router.handleImmediately(signed(key: "wrong")))
        #expect(try errorBody(refused).code == APIErrorCode.badSignature.rawValue)
        #expect(server.router.handleImmediately(HTTPRequest(method: "GET", target: "/healthz"))?.status == 200)
    }

    @Test func asyncRoutesAreLeftToThePoolWithoutConsumingTheNonce() async throws {
        let request = signed("POST", "/server/v1/channel/list", body: "{}")
        #expect(server.router.handleImmediately(request) == nil)
        #expect(await server.router.handle(request).status == 200)
    }

    @Test func metricsCountRequestsAndAuthFailuresByCause() async throws {
        _ = await server.router.handle(signed())
        _ = await server.router.handle(signed(key: "bad"))
        _ = await server.router.handle(signed(timestamp: 0))
        #expect(server.metrics.requestCount(route: "/server/v1/channel/grant", status: 200) == 1)
        #expect(server.metrics.authFailureCount(cause: "bad_signature") == 1)
        #expect(server.metrics.authFailureCount(cause: "timestamp_out_of_window") == 1)
        let text = String(decoding: await server.router.handle(HTTPRequest(method: "GET", target: "/metrics")).body, as: UTF8.self)
        #expect(text.contains(#"srtc_http_requests_total{route="/server/v1/channel/grant",status="200"} 1"#))
        #expect(text.contains(#"srtc_auth_failures_total{cause="bad_signature"} 1"#))
        #expect(text.contains("srtc_http_request_duration_seconds_bucket"))
    }
}

@Suite struct NonceCacheTests {
    @Test func nonceExpiresWithTheWindow() {
        let cache = NonceCache(capacity: 1000)
        #expect(cache.insert(appId: "a", nonce: "n", expiresAt: 1300, now: 1000) == .fresh)
        #expect(cache.insert(appId: "a", nonce: "n", expiresAt: 1300, now: 1299) == .replayed)
        #expect(cache.insert(appId: "b", nonce: "n", expiresAt: 1300, now: 1299) == .fresh)
        #expect(cache.insert(appId: "a", nonce: "n", expiresAt: 1700, now: 1301) == .fresh)
    }

    @Test func cacheIsBoundedAndRefusesWhenFull() {
        let cache = NonceCache(capacity: 1600)
        var outcomes: [NonceCache.Outcome] = []
        for i in 0..<5000 { outcomes.append(cache.insert(appId: "a", nonce: "n\(i)", expiresAt: 2000, now: 1000)) }
        #expect(cache.count <= 1600)
        #expect(outcomes.contains(.full))
        // Once the window passes, room frees up: every shard accepts again.
        let later = (0..<100).map { cache.insert(appId: "a", nonce: "later\($0)", expiresAt: 2500, now: 2001) }
        #expect(later.allSatisfy { $0 == .fresh })
    }
}

@Suite struct ServerConfigTests {
    @Test func defaults() throws {
        let c = try ServerConfig.load(arguments: [], environment: [:])
        #expect(c.httpPort == 7880 && c.media.udpPort == 7881 && c.bind == "127.0.0.1" && c.dataDir == "./srtc-data")
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-config-\(UUID()).json").path
        try Data(#"{"http_port": 9000, "udp_port": "9001", "bind": "0.0.0.0"}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let c = try ServerConfig.load(arguments: ["--http-port", "9100", "--config", path],
                                      environment: ["SRTC_HTTP_PORT": "9200", "SRTC_UDP_PORT": "9201"])
        #expect(c.httpPort == 9100)
        #expect(c.media.udpPort == 9201)
        #expect(c.bind == "0.0.0.0")
    }

    @Test func badInputsAreReported() {
        #expect(throws: ConfigError.unknownFlag("nope")) { try ServerConfig.load(arguments: ["--nope", "1"], environment: [:]) }
        #expect(throws: ConfigError.missingValue("bind")) { try ServerConfig.load(arguments: ["--bind"], environment: [:]) }
        #expect(throws: ConfigError.invalidValue("http-port", "70000")) { try ServerConfig.load(arguments: ["--http-port=70000"], environment: [:]) }
        #expect(throws: ConfigError.appCredentialsIncomplete) { try ServerConfig.load(arguments: [], environment: ["SRTC_APP_ID": "a"]) }
    }
}
